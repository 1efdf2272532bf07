import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { createOidcApp, createProject, postForm } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { createCaller, unique, useService } from '../support/fixtures.js';
import { ENTERPRISE, USER_SCHEMA, scimTenant } from '../scim/scim-helpers.js';
import { verifiedDomain } from './support/domains.js';
import { startUpstreamIdp } from './support/upstream-idp.js';
import { simpleSamlPhpMissing, startSimpleSamlPhp } from './support/simplesamlphp.js';
import type { SimpleSamlPhp } from './support/simplesamlphp.js';
import type { UpstreamIdp } from './support/upstream-idp.js';

/**
 * docs/federation.md in Chromium, as a person of a company sees it: the login page's button for the company's IdP, or
 * the company e-mail typed as login name, leads to the upstream (the reference oidc-provider on localhost), and
 * back to the application signed in as the account Entra ID provisioned by SCIM, or as a user created just in time.
 */
describe('federated sign-in in Chromium', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let browser: Browser;
  let rp: RelyingParty;
  let upstream: UpstreamIdp;
  let app: OidcApp;
  let orgId: string;
  const idp: Record<string, string> = {};
  const jitName = unique('grace');
  let bobId: string;
  // SimpleSAMLphp as the SAML IdP where installed (.ci/run installs it; test/federation/saml-sign-in.test.ts says so when it is not).
  let ssp: SimpleSamlPhp | undefined;

  before(async () => {
    [browser, rp, upstream] = await Promise.all([
      launchBrowser(),
      startRelyingParty(),
      startUpstreamIdp({
        'bob-sub': { oid: 'entra-oid-bob', preferred_username: 'bob@fabrikam.example' },
        'grace-sub': {
          oid: 'entra-oid-grace',
          preferred_username: jitName,
          given_name: 'Grace',
          family_name: 'Hopper',
          email: 'grace@fabrikam.example',
          email_verified: true,
        },
      }),
    ]);
    const tenant = await scimTenant(svc);
    orgId = tenant.orgId;
    const owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    await verifiedDomain(svc, orgId, 'fabrikam.example');
    app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' }, rp.url);
    for (const [key, settings] of Object.entries({ link: { link: { by: 'externalId', from: 'oid' }, domains: ['fabrikam.example'] }, jit: { jit: true } })) {
      const res = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
        token: owner.token,
        body: { type: 'oidc', name: `Fabrikam ${key}`, issuer: upstream.issuer, clientId: `rp-${key}`, clientSecret: 'browser-secret-1', ...settings },
      });
      assert.equal(res.status, 201, res.text);
      idp[key] = res.body.id;
      upstream.addClient({ client_id: `rp-${key}`, client_secret: 'browser-secret-1', redirect_uris: [res.body.callbackUrl] });
    }
    const provisioned = await tenant.scim('POST', '/Users', {
      body: {
        schemas: [USER_SCHEMA, ENTERPRISE],
        externalId: 'entra-oid-bob',
        userName: 'bob@fabrikam.example',
        active: true,
        name: { givenName: 'Bob', familyName: 'Builder' },
        emails: [{ primary: true, type: 'work', value: 'bob@fabrikam.example' }],
      },
    });
    assert.equal(provisioned.status, 201, provisioned.text);
    bobId = provisioned.body.id;
    if (!simpleSamlPhpMissing()) {
      ssp = await startSimpleSamlPhp({ bob: { password: 'bob-pass', attributes: { uid: ['bob'], employeeId: ['entra-oid-bob'] } } });
      const res = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
        token: owner.token,
        body: {
          type: 'saml',
          name: 'Fabrikam SAML',
          metadataUrl: ssp.metadataUrl,
          attributes: { userName: 'uid', externalId: 'employeeId' },
          link: { by: 'externalId', from: 'employeeId' },
        },
      });
      assert.equal(res.status, 201, res.text);
      const xml = await (await fetch(res.body.spMetadataUrl)).text();
      ssp.addServiceProvider({
        entityId: res.body.spEntityId,
        acsUrl: res.body.acsUrl,
        certificate: /<(?:\w+:)?X509Certificate[^>]*>([^<]+)</.exec(xml)![1].replace(/\s+/g, ''),
      });
      idp.saml = res.body.id;
    }
  });

  after(async () => {
    await ssp?.close();
    await browser?.close();
    await rp?.close();
    await upstream?.close();
  });

  const authorizeUrl = (verifier: string) =>
    `${svc.url}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, redirect_uri: `${rp.url}/cb`, response_type: 'code', scope: 'openid', state: 'rp', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' })}`;

  const subjectOf = async (code: string | null, verifier: string) => {
    assert.ok(code, 'a code at the application');
    const res = await postForm(
      svc,
      '/oauth/v2/token',
      { grant_type: 'authorization_code', code, redirect_uri: `${rp.url}/cb`, code_verifier: verifier },
      { id: app.clientId, secret: app.clientSecret! },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return JSON.parse(Buffer.from(String(res.body.id_token).split('.')[1], 'base64url').toString()) as { sub: string; amr: string[] };
  };

  const signInUpstream = async (page: import('playwright-core').Page, account: string) => {
    await page.locator('[data-upstream-account]').fill(account);
    await page.locator('[data-upstream-submit]').click();
  };

  it('the IdP button leads upstream and back, signed in as the user Entra ID provisioned (externalId = oid)', async () => {
    const { context, page } = await newPage(browser);
    try {
      const verifier = randomBytes(32).toString('base64url');
      const cb = await authorize(rp, page, authorizeUrl(verifier), async (p) => {
        await p.locator(`[data-idp="${idp.link}"]`).click();
        await signInUpstream(p, 'bob-sub');
        // The organization offers a second factor (policy optional); Bob declines it for now.
        await p.locator('[data-mfa-skip]').click();
      });
      const claims = await subjectOf(callbackParams(cb).get('code'), verifier);
      assert.equal(claims.sub, bobId);
      assert.deepEqual(claims.amr, ['fed']);
    } finally {
      await context.close();
    }
  });

  it('typing the company e-mail goes upstream without a password (home-realm discovery); a JIT IdP creates the user', async () => {
    const { context, page } = await newPage(browser);
    try {
      const verifier = randomBytes(32).toString('base64url');
      const cb = await authorize(rp, page, authorizeUrl(verifier), async (p) => {
        await p.fill('input[name="loginName"]', 'bob@fabrikam.example');
        await p.click('button[type="submit"]');
        await p.locator('[data-upstream-account]').waitFor();
        assert.equal(new URL(p.url()).origin, upstream.issuer, 'the upstream’s own page');
        // Bob declined the second-factor offer in the test before: it is not repeated.
        await signInUpstream(p, 'bob-sub');
      });
      assert.equal((await subjectOf(callbackParams(cb).get('code'), verifier)).sub, bobId);
    } finally {
      await context.close();
    }
    // Grace, in her own browser.
    const grace = await newPage(browser);
    try {
      const jitVerifier = randomBytes(32).toString('base64url');
      const jit = await authorize(rp, grace.page, authorizeUrl(jitVerifier), async (p) => {
        await p.locator(`[data-idp="${idp.jit}"]`).click();
        await signInUpstream(p, 'grace-sub');
        await p.locator('[data-mfa-skip]').click();
      });
      const created = await subjectOf(callbackParams(jit).get('code'), jitVerifier);
      const user = await svc.api('GET', `/management/v1/orgs/${orgId}/users/${created.sub}`, { token: svc.adminToken });
      assert.equal(user.status, 200, user.text);
      assert.equal(user.body.userName, jitName);
    } finally {
      await grace.context.close();
    }
  });

  it('the SAML IdP button leads to SimpleSAMLphp, whose page posts the response to the ACS cross-site, and back signed in', {
    skip: simpleSamlPhpMissing() ?? false,
  }, async () => {
    const { context, page } = await newPage(browser);
    try {
      const verifier = randomBytes(32).toString('base64url');
      const cb = await authorize(rp, page, authorizeUrl(verifier), async (p) => {
        await p.locator(`[data-idp="${idp.saml}"]`).click();
        await p.locator('input[name="username"]').fill('bob');
        await p.locator('input[name="password"]').fill('bob-pass');
        await p.locator('input[name="password"]').press('Enter');
      });
      const claims = await subjectOf(callbackParams(cb).get('code'), verifier);
      assert.equal(claims.sub, bobId);
      assert.deepEqual(claims.amr, ['fed']);
    } finally {
      await context.close();
    }
  });
});
