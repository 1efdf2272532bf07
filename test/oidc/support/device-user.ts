import assert from 'node:assert/strict';
import { LoginClient, csrfOf } from '../../attack/support/login-client.js';
import type { PageResponse } from '../../attack/support/login-client.js';
import type { TestService } from '../../support/service.js';
import { PASSWORD, createOidcApp, postForm } from './oidc-fixtures.js';
import type { OidcApp } from './oidc-fixtures.js';

export { csrfOf };

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
export const RP = 'http://127.0.0.1:65530';

/** An application a TV would use: public, the device grant only (and the code flow where a test needs it too). */
export async function deviceApp(
  svc: TestService,
  project: { orgId: string; projectId: string },
  grantTypes = [DEVICE_GRANT],
  responseTypes: string[] = [],
): Promise<OidcApp> {
  return createOidcApp(svc, project, { authMethod: 'none', grantTypes, responseTypes, redirectUris: responseTypes.length ? [`${RP}/cb`] : [] });
}

/** The user's side of RFC 8628 §3.3 over plain HTTP: the user code page, typed code, confirmation. */
export class DeviceUser {
  constructor(readonly browser: LoginClient) {}

  static of(svc: TestService, headers: Record<string, string> = {}): DeviceUser {
    return new DeviceUser(new LoginClient(svc.url, headers));
  }

  /** Types a user code on the verification page: the confirmation, or the page saying what was wrong. */
  async enter(userCode: string): Promise<PageResponse> {
    const form = await this.browser.get('/ui/login/device');
    assert.equal(form.status, 200, form.text);
    assert.match(form.text, /name="userCode"/);
    return this.browser.post('/ui/login/device', { xsrf: xsrfOf(form.text), userCode });
  }

  /** Presses one of the confirmation page's buttons. */
  async press(confirmation: PageResponse, button: 'confirm' | 'abort'): Promise<PageResponse> {
    return this.browser.post('/ui/login/device', { xsrf: xsrfOf(confirmation.text), userCode: userCodeOf(confirmation.text), [button]: 'yes' });
  }

  /** Confirms, signs in with the password at the login UI and follows to the end: the last page. */
  async approve(userCode: string, loginName: string): Promise<PageResponse> {
    const confirmation = await this.enter(userCode);
    assert.equal(confirmation.status, 200, confirmation.text);
    const toLogin = await this.press(confirmation, 'confirm');
    assert.equal(toLogin.status, 303, `to the login UI: ${toLogin.status} ${toLogin.text.slice(0, 300)}`);
    const { uid, page } = await this.loginPage(toLogin.location!);
    const posted = await this.browser.post(`/ui/login/${uid}/login`, { csrf: csrfOf(page.text), loginName, password: PASSWORD });
    return this.browser.follow(posted);
  }

  async loginPage(location: string): Promise<{ uid: string; page: PageResponse }> {
    const uid = /\/ui\/login\/([^/?]+)$/.exec(new URL(location, this.browser.baseUrl).pathname)?.[1];
    assert.ok(uid && uid !== 'device', `a login page: ${location}`);
    return { uid, page: await this.browser.get(location) };
  }
}

export const xsrfOf = (html: string) => /name="xsrf" value="([^"]*)"/.exec(html)?.[1] ?? '';
export const userCodeOf = (html: string) => /name="userCode" value="([^"]*)"/.exec(html)?.[1] ?? '';
export const deviceErrorOf = (page: PageResponse) => /data-device-error="([^"]+)"/.exec(page.text)?.[1];

/** One poll of the token endpoint as a device makes it (RFC 8628 §3.4). */
export function poll(svc: TestService, app: OidcApp, deviceCode: string) {
  return postForm(svc, '/oauth/v2/token', { grant_type: DEVICE_GRANT, device_code: deviceCode, client_id: app.clientId });
}
