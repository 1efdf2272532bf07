import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as oidc from 'openid-client';
import type { Browser } from 'playwright-core';
import { useService } from '../support/fixtures.js';
import { launchBrowser, newPage, submitLogin, withTimeout } from './support/browser.js';
import { PASSWORD, createHuman, createOidcApp, createProject, discover } from './support/oidc-fixtures.js';
import { ACR_PASSWORD, setLoginPolicy } from './support/second-factor.js';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/**
 * RFC 8628 as a person does it: a TV (openid-client 6) shows a code; Chromium opens the verification URI, the
 * code is entered or carried by `verification_uri_complete`, the person confirms on a page that names the
 * application and its organization, signs in at the login UI, and the TV's polling ends with tokens.
 */
describe('device flow in Chromium: the user enters the code, confirms, signs in', () => {
  const svc = useService({ DEVICE_POLL_INTERVAL_SECONDS: '1' });
  let browser: Browser;
  let config: oidc.Configuration;
  let loginName: string;
  let userId: string;
  let appName: string;
  let orgName: string;

  before(async () => {
    browser = await launchBrowser();
    const project = await createProject(svc);
    await setLoginPolicy(svc, project.orgId, { mfa: 'off' });
    const app = await createOidcApp(svc, project, { authMethod: 'none', grantTypes: [DEVICE_GRANT], responseTypes: [], redirectUris: [] });
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
    userId = user.userId;
    config = await discover(svc, app.clientId, oidc.None());
    appName = (await svc.api('GET', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/${app.appId}`, { token: svc.adminToken })).body
      .name;
    orgName = (await svc.api('GET', `/admin/v1/orgs/${project.orgId}`, { token: svc.adminToken })).body.name;
  });
  after(async () => {
    await browser?.close();
  });

  it('verification_uri_complete: the code arrives with the link, the person confirms and signs in; the ID token has amr and acr', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid profile' });
    const polling = oidc.pollDeviceAuthorizationGrant(config, started);
    const { context, page } = await newPage(browser);
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    try {
      await page.goto(started.verification_uri_complete!);
      await page.waitForSelector('[data-device-confirm]');
      const question = await page.textContent('[data-device-app]');
      assert.ok(question?.includes(appName) && question.includes(orgName), `names the application and its organization: ${question}`);
      assert.equal(await page.textContent('[data-device-user-code]'), started.user_code);
      await page.click('[data-device-confirm]');
      await page.waitForSelector('input[name="loginName"]');
      await submitLogin(page, loginName, PASSWORD);
      await page.waitForSelector('[data-device-success]');
      assert.ok((await page.textContent('[data-device-success]'))?.includes(appName));
      const tokens = await withTimeout(polling, 15_000, 'the device got no tokens');
      const claims = tokens.claims()!;
      assert.equal(claims.sub, userId);
      assert.deepEqual(claims.amr, ['pwd']);
      assert.equal(claims.acr, ACR_PASSWORD);
      assert.deepEqual(violations, [], 'no page broke its own CSP');
    } finally {
      await context.close();
    }
  });

  it('typed by hand in a German browser, then denied: the pages are German and the device is told access_denied', async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: 'openid' });
    // The device's answer, whenever it comes (its polling ends as soon as the code is denied).
    const outcome = oidc.pollDeviceAuthorizationGrant(config, started).then(
      () => 'tokens',
      (error: { error?: string }) => error.error,
    );
    const { context, page } = await newPage(browser, { locale: 'de-DE' });
    try {
      await page.goto(started.verification_uri);
      assert.equal(await page.title(), 'Gerät verbinden');
      await page.fill('input[name="userCode"]', 'BCDF-GHJK');
      await page.click('button[type="submit"]');
      await page.waitForSelector('[data-device-error="unknown"]');
      assert.match((await page.textContent('[data-device-error]')) ?? '', /unbekannt/);
      await page.fill('input[name="userCode"]', started.user_code.toLowerCase());
      await page.click('button[type="submit"]');
      await page.waitForSelector('[data-device-deny]');
      assert.match((await page.textContent('[data-device-app]')) ?? '', /möchte Sie auf einem Gerät anmelden/);
      await page.click('[data-device-deny]');
      await page.waitForSelector('[data-device-denied]');
      assert.equal(await withTimeout(outcome, 15_000, 'polling did not end'), 'access_denied');
    } finally {
      await context.close();
    }
  });
});
