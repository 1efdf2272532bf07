import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, submitLogin } from '../oidc/support/browser.js';
import { createHuman, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import { setLoginPolicy } from '../oidc/support/second-factor.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { mellonSkipReason, startMellon } from '../saml/support/mellon-sp.js';
import type { MellonSp } from '../saml/support/mellon-sp.js';

/**
 * A SAML application with `access: "granted"` behind Debian's Apache with mod_auth_mellon, in Chromium
 * (docs/product-rules.md, "Application access"): SP-initiated and IdP-initiated sign-in refuse a user without a grant
 * with the login UI's 403 page naming the application and no assertion; a grant admits them.
 */
describe('application access at a SAML application (mod_auth_mellon, Chromium)', { skip: mellonSkipReason() }, () => {
  const svc = useService();
  let browser: Browser;
  let mellon: MellonSp;
  let org: { id: string; primaryDomain: string };
  let projectId: string;
  let app: { appId: string; name: string };

  before(async () => {
    browser = await launchBrowser();
    org = await createOrg(svc);
    await setLoginPolicy(svc, org.id, { mfa: 'off' });
    projectId = (await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: svc.adminToken, body: { name: unique('saml') } })).body.id;
    const idpMetadata = await (await fetch(`${svc.config.publicUrl}/saml/v2/${org.id}/metadata`)).text();
    mellon = await startMellon({ idpMetadataXml: idpMetadata, nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent' });
    const name = unique('mellon');
    const created = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${projectId}/apps/saml`, {
      token: svc.adminToken,
      body: { name, metadataXml: mellon.metadataXml, access: 'granted', allowIdpInitiated: true },
    });
    assert.equal(created.status, 201, created.text);
    app = { appId: created.body.appId, name };
  });
  after(async () => {
    await mellon?.stop();
    await browser?.close();
  });

  async function newUser(): Promise<{ userId: string; loginName: string }> {
    const user = await createHuman(svc, org.id);
    return { userId: user.userId, loginName: `${user.userName}@${org.primaryDomain}` };
  }

  async function grant(userId: string): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${projectId}/grants`, { token: svc.adminToken, body: { userId, roles: [] } });
    assert.equal(res.status, 201, res.text);
    return res.body.grantId;
  }

  async function denials(userId: string): Promise<string[]> {
    const rows: { payload: string }[] = await svc.dataSource.query(
      "SELECT payload FROM events WHERE type = 'user.app.access.denied' AND aggregate_id = ? ORDER BY position",
      [userId],
    );
    return rows.map((r) => {
      const payload = JSON.parse(r.payload) as { appId: string; door: string };
      assert.equal(payload.appId, app.appId);
      return payload.door;
    });
  }

  async function issuedAssertions(userId: string): Promise<number> {
    const rows: { n: number | string }[] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM saml_sessions WHERE user_id = ?', [userId]);
    return Number(rows[0]!.n);
  }

  async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
    const ui = await newPage(browser);
    try {
      return await run(ui.page);
    } catch (error) {
      throw new Error(
        `${(error as Error).message}\nat ${ui.page.url()}: ${(await ui.page.textContent('body'))?.slice(0, 500)}\n${mellon.errorLog().slice(-1500)}`,
      );
    } finally {
      await ui.context.close();
    }
  }

  /** The refusal page: 403, access_denied, the application's name. */
  async function assertRefused(page: Page): Promise<void> {
    await page.waitForSelector('[data-error="access_denied"]', { timeout: 15_000 });
    assert.match((await page.textContent('body')) ?? '', new RegExp(app.name));
    assert.ok(!page.url().startsWith(mellon.origin), `still at the IdP: ${page.url()}`);
  }

  it('SP-initiated: a user without a grant is refused with no assertion; a grant admits them', async () => {
    const user = await newUser();
    await withPage(async (page) => {
      await page.goto(mellon.protectedUrl);
      await page.waitForSelector('input[name="password"]');
      const answer = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/ui/login/'));
      await submitLogin(page, user.loginName, PASSWORD);
      await assertRefused(page);
      assert.equal((await answer).status(), 403);
    });
    assert.equal(await issuedAssertions(user.userId), 0);
    assert.deepEqual(await denials(user.userId), ['saml_sso']);

    await grant(user.userId);
    const seen = await withPage(async (page) => {
      await page.goto(mellon.protectedUrl);
      await page.waitForSelector('input[name="password"]');
      await submitLogin(page, user.loginName, PASSWORD);
      await page.waitForURL((u) => u.href.startsWith(mellon.protectedUrl), { timeout: 15_000 });
      return JSON.parse((await page.textContent('body')) ?? '{}') as Record<string, string>;
    }).catch((error: Error) => {
      throw new Error(`${error.message}\nmellon's log:\n${mellon.errorLog()}`);
    });
    assert.ok(seen.MELLON_NAME_ID, 'mellon accepted the assertion');
    assert.equal(await issuedAssertions(user.userId), 1);
  });

  it('IdP-initiated: refused without a grant, and refused with a session once the grant is removed', async () => {
    const stranger = await newUser();
    await withPage(async (page) => {
      await page.goto(`${svc.config.publicUrl}/saml/v2/${org.id}/init?sp=${encodeURIComponent(mellon.entityId)}`);
      await page.waitForSelector('input[name="password"]');
      await submitLogin(page, stranger.loginName, PASSWORD);
      await assertRefused(page);
    });
    assert.deepEqual(await denials(stranger.userId), ['saml_idp_initiated']);
    assert.equal(await issuedAssertions(stranger.userId), 0);

    const member = await newUser();
    const grantId = await grant(member.userId);
    await withPage(async (page) => {
      await page.goto(mellon.protectedUrl);
      await page.waitForSelector('input[name="password"]');
      await submitLogin(page, member.loginName, PASSWORD);
      await page.waitForURL((u) => u.href.startsWith(mellon.protectedUrl), { timeout: 15_000 });
      const removed = await svc.api('DELETE', `/management/v1/orgs/${org.id}/projects/${projectId}/grants/${grantId}`, { token: svc.adminToken });
      assert.equal(removed.status, 204, removed.text);
      // The IdP session stands; the sign-in it would carry is refused without asking for a password.
      await page.goto(`${svc.config.publicUrl}/saml/v2/${org.id}/init?sp=${encodeURIComponent(mellon.entityId)}`);
      await assertRefused(page);
    });
    assert.deepEqual(await denials(member.userId), ['saml_idp_initiated']);
    assert.equal(await issuedAssertions(member.userId), 1, 'only the assertion issued while the grant stood');
  });
});
