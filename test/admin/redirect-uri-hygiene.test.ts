import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { badRequest, json, row, setUpOrg } from './helpers.js';
import type { OrgSetup } from './helpers.js';

function webApp(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: unique('web'),
    redirectUris: ['https://app.example.com/callback'],
    postLogoutRedirectUris: ['https://app.example.com/signed-out'],
    responseTypes: ['code'],
    grantTypes: ['authorization_code'],
    authMethod: 'client_secret_basic',
    ...overrides,
  };
}

/**
 * Redirect URIs that a browser and a server read differently, or that carry credentials, are refused
 * at registration with 400 naming the field, in both redirect URI lists and even in devMode; nothing
 * is written.
 */
describe('redirect URI hygiene at application registration', () => {
  const svc = useService();
  let a: OrgSetup;
  let projectId: string;
  const appsPath = () => `/management/v1/orgs/${a.org.id}/projects/${projectId}/apps/oidc`;

  before(async () => {
    a = await setUpOrg(svc);
    const project = await svc.api('POST', `/management/v1/orgs/${a.org.id}/projects`, { token: a.owner.token, body: { name: unique('p') } });
    assert.equal(project.status, 201, project.text);
    projectId = project.body.id;
  });

  const cases: Array<[string, string, RegExp]> = [
    ['userinfo with a password', 'https://u:p@app.example.com/cb', /user information/],
    ['userinfo without a password', 'https://evil.example@app.example.com/cb', /user information/],
    ['an empty userinfo', 'https://@app.example.com/cb', /user information/],
    ['a backslash in the path', 'https://app.example.com\\@evil.example/cb', /backslash/],
    ['a backslash before the host', 'https:\\\\app.example.com/cb', /backslash/],
    ['a fragment', 'https://app.example.com/cb#section', /fragment/],
    ['an empty fragment', 'https://app.example.com/cb#', /fragment/],
    ['a tab inside', 'https://app.example.com/c\tb', /control characters/],
  ];

  for (const list of ['redirectUris', 'postLogoutRedirectUris'] as const) {
    for (const [label, uri, message] of cases) {
      it(`${list}: refuses ${label} with 400 naming ${list}.1, also in devMode`, async () => {
        for (const devMode of [false, true]) {
          const body = webApp({ [list]: ['https://app.example.com/ok', uri], devMode });
          const res = await badRequest(svc, [`${list}.1`], () => svc.api('POST', appsPath(), { token: a.owner.token, body }), `${label} (devMode ${devMode})`);
          const detail = res.body.details.find((d: { field?: string }) => d.field === `${list}.1`);
          assert.match(detail.message, message);
          assert.ok(!res.text.includes('u:p@'), 'credentials in the URI are not echoed');
        }
      });
    }
  }

  it('still accepts ordinary redirect URIs, with a query and a port, stored exactly as given', async () => {
    const body = webApp({
      redirectUris: ['https://app.example.com:8443/cb?tenant=a%20b', 'com.example.app:/oauth2redirect'],
      postLogoutRedirectUris: ['https://app.example.com/'],
    });
    const res = await svc.api('POST', appsPath(), { token: a.owner.token, body });
    assert.equal(res.status, 201, res.text);
    const app = await row(svc, 'SELECT redirect_uris, post_logout_redirect_uris FROM applications WHERE id = ?', [res.body.appId]);
    assert.deepEqual(json(app.redirect_uris), body.redirectUris);
    assert.deepEqual(json(app.post_logout_redirect_uris), body.postLogoutRedirectUris);
  });
});
