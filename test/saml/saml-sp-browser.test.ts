import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, submitLogin } from '../oidc/support/browser.js';
import { createHuman, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import { totpCode } from '../oidc/support/second-factor.js';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { mellonSkipReason, startMellon } from './support/mellon-sp.js';
import type { MellonSp } from './support/mellon-sp.js';
import { REFEDS_MFA, xmlsecVerify } from './support/saml-messages.js';
import { simpleSamlPhpSkipReason, startSimpleSamlSp } from './support/simplesamlphp-sp.js';
import type { SimpleSamlSp, SimpleSamlSpResult } from './support/simplesamlphp-sp.js';

const PPT = 'urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport';
const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';
const EMAIL_ADDRESS = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/**
 * Service providers no one here wrote (docs/saml.md, "Registering the service providers operators ask about"): Debian's
 * Apache with mod_auth_mellon and SimpleSAMLphp,
 * started on free ports, signing users in through the IdP in Chromium; every response's signature is also checked by
 * xmlsec1 against the certificate of the IdP's metadata.
 */
describe('SAML IdP with real service providers (Chromium)', { skip: mellonSkipReason() || simpleSamlPhpSkipReason() }, () => {
  // The SPs' SLO URLs are on 127.0.0.1: the server-sent LogoutRequests need the outbound switch (docs/saml.md, "Single logout").
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let browser: Browser;
  let org: { id: string; primaryDomain: string };
  let owner: { token: string };
  let projectId: string;
  let idpMetadata: string;
  let signingCert: string;
  const stops: (() => Promise<void>)[] = [];

  before(async () => {
    browser = await launchBrowser();
    org = await createOrg(svc);
    owner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    projectId = (await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: owner.token, body: { name: unique('saml') } })).body.id;
    idpMetadata = await (await fetch(`${svc.config.publicUrl}/saml/v2/${org.id}/metadata`)).text();
    signingCert = new X509Certificate(Buffer.from(/<ds:X509Certificate>([^<]+)</.exec(idpMetadata)![1]!, 'base64')).toString();
  });
  after(async () => {
    for (const stop of stops) await stop();
    await browser?.close();
  });

  async function register(metadataXml: string, fields: Record<string, unknown> = {}): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${projectId}/apps/saml`, {
      token: owner.token,
      body: { name: unique('sp'), metadataXml, ...fields },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.appId;
  }

  async function newUser(): Promise<{ userId: string; loginName: string; email: string }> {
    const user = await createHuman(svc, org.id);
    return { userId: user.userId, loginName: `${user.userName}@${org.primaryDomain}`, email: `${user.userName}@example.com` };
  }

  /** The persistent NameID the IdP issued `userId` (pairwise per SP, docs/saml.md "NameID"), from its session record. */
  async function issuedNameId(userId: string): Promise<string> {
    const rows = (await svc.dataSource.query('SELECT name_id FROM saml_sessions WHERE user_id = ?', [userId])) as { name_id: string }[];
    assert.equal(rows.length, 1, 'one assertion issued');
    assert.notEqual(rows[0]!.name_id, userId, 'never the user id');
    return rows[0]!.name_id;
  }

  async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
    const ui = await newPage(browser);
    try {
      return await run(ui.page);
    } finally {
      await ui.context.close();
    }
  }

  /** Opens `url`, signs in at the login page if it comes, and returns the JSON the SP's page ends on. */
  async function signInAt<T>(page: Page, url: string, user: { loginName: string } | undefined, landing: string): Promise<T> {
    await page.goto(url);
    if (user) {
      await page.waitForSelector('input[name="password"]');
      await submitLogin(page, user.loginName, PASSWORD);
    }
    await page.waitForURL((u) => u.href.startsWith(landing), { timeout: 15_000 });
    return JSON.parse((await page.textContent('body')) ?? '{}') as T;
  }

  describe('mod_auth_mellon', () => {
    let mellon: MellonSp;
    let postMellon: MellonSp;

    before(async () => {
      // Each mellon asks for the NameID format of its application (the first NameIDFormat of its metadata).
      mellon = await startMellon({ idpMetadataXml: idpMetadata, nameIdFormat: PERSISTENT });
      stops.push(() => mellon.stop());
      // An IdP whose metadata lists only HTTP-POST: mellon sends its AuthnRequest by an auto-posting form.
      postMellon = await startMellon({
        idpMetadataXml: idpMetadata.replace(/\s*<md:SingleSignOnService Binding="[^"]*HTTP-Redirect"[^>]*\/>/, ''),
        nameIdFormat: EMAIL_ADDRESS,
      });
      stops.push(() => postMellon.stop());
      const attributes = [
        { name: 'email', from: 'email' },
        { name: 'groups', from: 'groups' },
      ];
      // Registered by its metadata URL (read once, at creation): mellon serves the document it uses.
      const byUrl = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${projectId}/apps/saml`, {
        token: owner.token,
        body: { name: unique('mellon'), metadataUrl: `${mellon.origin}/mellon/metadata`, attributes },
      });
      assert.equal(byUrl.status, 201, byUrl.text);
      const registered = await svc.api('GET', `/management/v1/orgs/${org.id}/projects/${projectId}/apps/${byUrl.body.appId}`, { token: owner.token });
      assert.equal(registered.body.entityId, mellon.entityId);
      assert.deepEqual(registered.body.acsUrls, [mellon.acsUrl]);
      await register(postMellon.metadataXml, { attributes, nameIdFormat: 'emailAddress' });
    });

    it('SP-initiated by HTTP-Redirect (signed request): the NameID and attributes as configured, both signatures verified by xmlsec1', async () => {
      const user = await newUser();
      const seen = await withPage((page) => signInAt<Record<string, string>>(page, mellon.protectedUrl, user, mellon.protectedUrl)).catch((error: Error) => {
        throw new Error(`${error.message}\nmellon's log:\n${mellon.errorLog()}`);
      });
      assert.equal(seen.MELLON_NAME_ID, await issuedNameId(user.userId), 'persistent NameID: the pairwise one issued');
      assert.equal(seen.MELLON_email, user.email);
      assert.equal(seen.MELLON_IDP, `${svc.config.publicUrl}/saml/v2/${org.id}/metadata`);
      const response = Buffer.from(seen.MELLON_SAML_RESPONSE!, 'base64').toString('utf8');
      xmlsecVerify(response, signingCert, 'urn:oasis:names:tc:SAML:2.0:protocol:Response');
      xmlsecVerify(response, signingCert, 'urn:oasis:names:tc:SAML:2.0:assertion:Assertion');
      assert.match(response, new RegExp(`<saml:AuthnContextClassRef>${PPT}</saml:AuthnContextClassRef>`));
    });

    it('SP-initiated by HTTP-POST (signed in the XML): an emailAddress NameID', async () => {
      const user = await newUser();
      const seen = await withPage((page) => signInAt<Record<string, string>>(page, postMellon.protectedUrl, user, postMellon.protectedUrl)).catch(
        (error: Error) => {
          throw new Error(`${error.message}\nmellon's log:\n${postMellon.errorLog()}`);
        },
      );
      assert.equal(seen.MELLON_NAME_ID, user.email);
      xmlsecVerify(Buffer.from(seen.MELLON_SAML_RESPONSE!, 'base64').toString('utf8'), signingCert, 'urn:oasis:names:tc:SAML:2.0:protocol:Response');
    });

    it('single logout from mellon ends the IdP session: the next visit signs in again (the account chooser)', async () => {
      const user = await newUser();
      await withPage(async (page) => {
        await signInAt(page, mellon.protectedUrl, user, mellon.protectedUrl);
        await page.goto(mellon.logoutUrl());
        await page.waitForURL((u) => u.href.startsWith(mellon.loggedOutUrl), { timeout: 15_000 });
        const ended = await searchEvents(svc, { event_types: ['session.terminated'], aggregate_id: undefined });
        assert.ok(
          ended.some(
            (event) =>
              (event.payload as { userId?: string; reason?: string }).userId === user.userId && (event.payload as { reason?: string }).reason === 'saml_logout',
          ),
        );
        await page.goto(mellon.protectedUrl);
        // The login UI remembers the account on this browser, and offers it again: a sign-in, not a session.
        await page.waitForSelector(`[data-login-name="${user.loginName}"]`, { timeout: 15_000 });
        assert.match(new URL(page.url()).pathname, /^\/ui\/login\//);
      });
    });

    it('deactivating the user logs it out of mellon (a LogoutRequest from the server)', async () => {
      const user = await newUser();
      await withPage(async (page) => {
        await signInAt(page, mellon.protectedUrl, user, mellon.protectedUrl);
        const res = await svc.api('POST', `/management/v1/orgs/${org.id}/users/${user.userId}/deactivate`, { token: owner.token });
        assert.ok(res.status < 300, res.text);
        // The outbox sends within a poll (500 ms); mellon then has no session and sends the browser to the IdP again.
        let redirected = false;
        for (let i = 0; i < 40 && !redirected; i++) {
          const answer = await page.request.get(mellon.protectedUrl, { maxRedirects: 0 });
          redirected = answer.status() === 303 || answer.status() === 302;
          if (!redirected) await new Promise((r) => setTimeout(r, 250));
        }
        assert.ok(redirected, `mellon's session ended:\n${mellon.errorLog().slice(-2000)}`);
      });
    });
  });

  describe('SimpleSAMLphp', () => {
    let sp: SimpleSamlSp;
    let encryptingSp: SimpleSamlSp;
    let emailSp: SimpleSamlSp;

    before(async () => {
      sp = await startSimpleSamlSp({ idpMetadataXml: idpMetadata, signAuthnRequests: true, nameIdFormat: PERSISTENT });
      stops.push(() => sp.stop());
      encryptingSp = await startSimpleSamlSp({ idpMetadataXml: idpMetadata, encryptedAssertions: true });
      stops.push(() => encryptingSp.stop());
      await register(sp.metadataXml, {
        allowIdpInitiated: true,
        attributes: [
          { name: 'urn:oid:0.9.2342.19200300.100.1.3', from: 'email', nameFormat: 'uri' },
          { name: 'displayName', from: 'displayName' },
        ],
      });
      await register(encryptingSp.metadataXml, { encryptAssertion: true, nameIdFormat: 'transient' });
      emailSp = await startSimpleSamlSp({ idpMetadataXml: idpMetadata, nameIdFormat: EMAIL_ADDRESS });
      stops.push(() => emailSp.stop());
      await register(emailSp.metadataXml, { nameIdFormat: 'emailAddress', attributes: [{ name: 'mail', from: 'email' }] });
    });

    const result = (page: Page, target: SimpleSamlSp, url: string, user?: { loginName: string }) =>
      signInAt<SimpleSamlSpResult>(page, url, user, target.resultUrl);

    it('SP-initiated by both bindings: attributes by URI name, a persistent NameID, verified by xmlsec1', async () => {
      for (const binding of ['redirect', 'post'] as const) {
        const user = await newUser();
        const seen = await withPage((page) => result(page, sp, sp.loginUrl({ binding }), user));
        assert.equal(seen.authenticated, true, JSON.stringify(seen));
        assert.equal(seen.nameId?.value, await issuedNameId(user.userId));
        assert.equal(seen.nameId?.format, PERSISTENT);
        assert.deepEqual(seen.attributes?.['urn:oid:0.9.2342.19200300.100.1.3'], [user.email]);
        assert.equal(seen.authnContextClassRef, PPT);
        xmlsecVerify(sp.lastResponseXml()!, signingCert, 'urn:oasis:names:tc:SAML:2.0:protocol:Response');
      }
    });

    it('an emailAddress NameID carries only a verified address: two users who set the same one get InvalidNameIDPolicy, the SP no session', async () => {
      const address = `ceo-${unique('x')}@corp.example`;
      for (let i = 0; i < 2; i++) {
        const userName = unique('user');
        const created = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, {
          token: svc.adminToken,
          body: { userName, profile: { firstName: 'Not', lastName: 'The CEO' }, email: { email: address, isEmailVerified: false }, password: PASSWORD },
        });
        assert.equal(created.status, 201, created.text);
        const seen = await withPage((page) => result(page, emailSp, emailSp.loginUrl(), { loginName: `${userName}@${org.primaryDomain}` }));
        assert.equal(seen.authenticated, false, JSON.stringify(seen));
        assert.equal(seen.error?.subStatusCode, 'urn:oasis:names:tc:SAML:2.0:status:InvalidNameIDPolicy', JSON.stringify(seen));
        const response = emailSp.lastResponseXml()!;
        assert.doesNotMatch(response, /Assertion/);
        assert.ok(!response.includes(address), 'the address is nowhere in the response');
        xmlsecVerify(response, signingCert, 'urn:oasis:names:tc:SAML:2.0:protocol:Response');
      }
    });

    it('encrypted assertions with a transient NameID', async () => {
      const user = await newUser();
      const seen = await withPage((page) => result(page, encryptingSp, encryptingSp.loginUrl(), user));
      assert.equal(seen.authenticated, true, JSON.stringify(seen));
      assert.equal(seen.nameId?.format, 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient');
      assert.match(encryptingSp.lastResponseXml()!, /EncryptedAssertion/);
    });

    it('step-up to MFA: inside a password session, an SP asking for REFEDS MFA makes the user enrol TOTP and gets REFEDS MFA', async () => {
      const user = await newUser();
      const seen = await withPage(async (page) => {
        await result(page, sp, sp.loginUrl(), user);
        await page.goto(sp.loginUrl({ authnContextClassRef: REFEDS_MFA }));
        await page.waitForSelector('[data-totp-enrol]', { timeout: 15_000 });
        await page.click('[data-totp-enrol]');
        const secret = (await page.textContent('[data-totp-secret]'))!.trim();
        await page.fill('input[name="code"]', totpCode(secret));
        await page.click('button[type="submit"]');
        // The recovery codes, shown once; continuing finishes the sign-in.
        await page.waitForSelector('[data-recovery-code]');
        await page.click('button[type="submit"]');
        await page.waitForURL((u) => u.href.startsWith(sp.resultUrl), { timeout: 15_000 });
        return JSON.parse((await page.textContent('body')) ?? '{}') as SimpleSamlSpResult;
      });
      assert.equal(seen.authnContextClassRef, REFEDS_MFA, JSON.stringify(seen));
    });

    it('IsPassive without a session comes back NoPassive; IdP-initiated sign-in where allowed, refused elsewhere', async () => {
      const passive = await withPage((page) => result(page, sp, sp.loginUrl({ isPassive: true })));
      assert.equal(passive.authenticated, false);
      assert.equal(passive.error?.subStatusCode, 'urn:oasis:names:tc:SAML:2.0:status:NoPassive', JSON.stringify(passive));
      const user = await newUser();
      const initiated = await withPage(async (page) => {
        await page.goto(`${svc.config.publicUrl}/saml/v2/${org.id}/init?sp=${encodeURIComponent(sp.entityId)}`);
        await page.waitForSelector('input[name="password"]');
        await submitLogin(page, user.loginName, PASSWORD);
        await page.waitForURL((u) => u.href.startsWith(sp.baseUrl), { timeout: 15_000 });
        return JSON.parse((await page.goto(sp.resultUrl).then((r) => r!.text())) || '{}') as SimpleSamlSpResult;
      });
      assert.equal(initiated.authenticated, true, JSON.stringify(initiated));
      assert.equal(initiated.nameId?.value, await issuedNameId(user.userId));
      const refused = await fetch(`${svc.config.publicUrl}/saml/v2/${org.id}/init?sp=${encodeURIComponent(encryptingSp.entityId)}`);
      assert.equal(refused.status, 403);
    });
  });
});
