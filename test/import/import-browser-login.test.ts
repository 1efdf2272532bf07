import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import bcrypt from 'bcryptjs';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { unique, useService } from '../support/fixtures.js';
import { authorize, launchBrowser, newPage, startRelyingParty, submitLogin } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { createOidcApp, createProject, discover } from '../oidc/support/oidc-fixtures.js';
import { humanUser, importBody, importedIds, postImport, storedHash } from './import.helpers.js';

/** An imported bcrypt password signs in through the login UI in the browser (docs/product-rules.md). */
describe('an imported user signs in through the login UI (Chromium)', () => {
  const svc = useService();
  let browser: Browser;
  let rp: RelyingParty;
  before(async () => {
    browser = await launchBrowser();
    rp = await startRelyingParty();
  });
  after(async () => {
    await browser?.close();
    await rp?.close();
  });

  it('with the password behind its imported bcrypt hash, which is then re-hashed at the configured cost', async () => {
    const orgId = unique('login-org');
    const password = 'Migrated-Secret-42';
    // As the previous system stored it: bcrypt, another cost than this service's (BCRYPT_COST=4 in tests).
    const imported = bcrypt.hashSync(password, 6);
    const userId = unique('imported');
    const userName = unique('migrated');
    const response = await postImport(
      svc,
      importBody([{ orgId, org: { name: orgId }, humanUsers: [humanUser(userId, userName, { hashedPassword: { value: imported } })] }]),
    );
    assert.deepEqual(importedIds(response), [userId]);

    const project = await createProject(svc, orgId);
    const app = await createOidcApp(svc, project, { authMethod: 'none' }, rp.url);
    const config = await discover(svc, app.clientId, oidc.None());
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${rp.url}/cb`,
      scope: 'openid profile email',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const ui = await newPage(browser);
    try {
      const cb = await authorize(rp, ui.page, url, (page) => submitLogin(page, `${userName}@${orgId}.localhost`, password));
      const tokens = await oidc.authorizationCodeGrant(config, cb.url, { pkceCodeVerifier: verifier, expectedState: state, idTokenExpected: true });
      assert.equal(tokens.claims()!.sub, userId);
    } finally {
      await ui.context.close();
    }
    assert.match((await storedHash(svc, userId)) ?? '', /^\$2b\$04\$/, 're-hashed to the configured cost after the first login');
  });
});
