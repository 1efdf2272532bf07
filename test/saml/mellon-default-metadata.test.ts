import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, submitLogin } from '../oidc/support/browser.js';
import { createHuman, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { mellonSkipReason, startMellon } from './support/mellon-sp.js';
import type { MellonSp } from './support/mellon-sp.js';

const TRANSIENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';

/**
 * mod_auth_mellon as an operator sets it up from mellon's README: its key, certificate and metadata made by
 * `mellon_create_metadata`, no NameIDFormat in them, so mellon's NameIDPolicy asks for `transient`. Registered by that
 * metadata alone, the application keeps its default format (`persistent`), and every application gives `transient`
 * when asked (docs/saml.md, "NameID"): sign-in, single logout from mellon, and the logout a deactivation sends, in
 * Chromium.
 */
describe('SAML IdP with mod_auth_mellon as mellon_create_metadata sets it up (Chromium)', { skip: mellonSkipReason() }, () => {
  // Mellon's SLO URL is on 127.0.0.1: the server-sent LogoutRequests need the outbound switch (docs/saml.md, "Single logout").
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let browser: Browser;
  let mellon: MellonSp;
  let org: { id: string; primaryDomain: string };
  let owner: { token: string };

  before(async () => {
    browser = await launchBrowser();
    org = await createOrg(svc);
    owner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    const projectId = (await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: owner.token, body: { name: unique('saml') } })).body.id;
    const idpMetadataXml = await (await fetch(`${svc.config.publicUrl}/saml/v2/${org.id}/metadata`)).text();
    mellon = await startMellon({ idpMetadataXml, mellonCreatedMetadata: true });
    assert.doesNotMatch(mellon.metadataXml, /NameIDFormat/, 'mellon_create_metadata names no NameIDFormat');
    const created = await svc.api('POST', `/management/v1/orgs/${org.id}/projects/${projectId}/apps/saml`, {
      token: owner.token,
      body: { name: unique('mellon'), metadataXml: mellon.metadataXml },
    });
    assert.equal(created.status, 201, created.text);
    const registered = await svc.api('GET', `/management/v1/orgs/${org.id}/projects/${projectId}/apps/${created.body.appId}`, { token: owner.token });
    assert.equal(registered.body.nameIdFormat, 'persistent', 'the default format, which mellon does not ask for');
  });
  after(async () => {
    await mellon?.stop();
    await browser?.close();
  });

  async function newUser(): Promise<{ userId: string; loginName: string }> {
    const user = await createHuman(svc, org.id);
    return { userId: user.userId, loginName: `${user.userName}@${org.primaryDomain}` };
  }

  /** Signs `user` in at mellon's protected page and returns what mellon hands the application. */
  async function signIn(page: Page, user: { loginName: string }): Promise<Record<string, string>> {
    await page.goto(mellon.protectedUrl);
    await page.waitForSelector('input[name="password"]', { timeout: 15_000 }).catch(async () => {
      const body = ((await page.textContent('body').catch(() => '')) ?? '').trim().slice(0, 300);
      throw new Error(`no sign-in page: at ${page.url()}: ${body}\nmellon's log:\n${mellon.errorLog().slice(-1500)}`);
    });
    await submitLogin(page, user.loginName, PASSWORD);
    await page
      .waitForURL((u) => u.href.startsWith(mellon.protectedUrl), { timeout: 15_000 })
      .catch((error: Error) => {
        throw new Error(`${error.message} (at ${page.url()})\nmellon's log:\n${mellon.errorLog().slice(-2000)}`);
      });
    return JSON.parse((await page.textContent('body')) ?? '{}') as Record<string, string>;
  }

  /** The assertions the IdP recorded for `userId` (what a LogoutRequest is matched against). */
  async function recorded(userId: string): Promise<{ name_id: string; name_id_format: string }[]> {
    return (await svc.dataSource.query('SELECT name_id, name_id_format FROM saml_sessions WHERE user_id = ?', [userId])) as {
      name_id: string;
      name_id_format: string;
    }[];
  }

  async function withPage<T>(run: (page: Page) => Promise<T>): Promise<T> {
    const ui = await newPage(browser);
    try {
      return await run(ui.page);
    } finally {
      await ui.context.close();
    }
  }

  it('signs in with a transient NameID, recorded with its format, never the pairwise one or the user id', async () => {
    const user = await newUser();
    const seen = await withPage((page) => signIn(page, user));
    assert.ok(seen.MELLON_NAME_ID, JSON.stringify(seen));
    assert.notEqual(seen.MELLON_NAME_ID, user.userId);
    assert.match(Buffer.from(seen.MELLON_SAML_RESPONSE!, 'base64').toString('utf8'), new RegExp(`Format="${TRANSIENT}"`));
    assert.deepEqual(await recorded(user.userId), [{ name_id: seen.MELLON_NAME_ID, name_id_format: TRANSIENT }]);
  });

  it('single logout from mellon names the transient NameID and ends the IdP session: the next visit signs in again', async () => {
    const user = await newUser();
    await withPage(async (page) => {
      await signIn(page, user);
      await page.goto(mellon.logoutUrl());
      await page
        .waitForURL((u) => u.href.startsWith(mellon.loggedOutUrl), { timeout: 15_000 })
        .catch((error: Error) => {
          throw new Error(`${error.message} (at ${page.url()})\nmellon's log:\n${mellon.errorLog().slice(-2000)}`);
        });
      const ended = await searchEvents(svc, { event_types: ['session.terminated'] });
      assert.ok(
        ended.some((event) => {
          const payload = event.payload as { userId?: string; reason?: string };
          return payload.userId === user.userId && payload.reason === 'saml_logout';
        }),
        'the IdP session ended by the LogoutRequest',
      );
      assert.deepEqual(await recorded(user.userId), []);
      await page.goto(mellon.protectedUrl);
      await page.waitForSelector(`[data-login-name="${user.loginName}"]`, { timeout: 15_000 });
      assert.match(new URL(page.url()).pathname, /^\/ui\/login\//);
    });
  });

  it('deactivating the user logs it out of mellon: the LogoutRequest from the server names the transient NameID', async () => {
    const user = await newUser();
    await withPage(async (page) => {
      await signIn(page, user);
      const res = await svc.api('POST', `/management/v1/orgs/${org.id}/users/${user.userId}/deactivate`, { token: owner.token });
      assert.ok(res.status < 300, res.text);
      // The outbox sends once the deactivation commits; mellon then has no session and sends the browser to the IdP again.
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
