import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { humanUser, importBody } from '../import/import.helpers.js';
import { assertScimError, scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { unique, useService } from '../support/fixtures.js';
import { databaseState } from './support/db-state.js';
import { LoginClient } from './support/login-client.js';

const RP = 'http://127.0.0.1:65530';
/** A lone high surrogate, a lone low one, and NUL: text both databases would store differently. */
const INVALID = ['a\ud800b', 'a\udc00b', 'a\u0000b'];

/** docs/product-rules.md, "API": text that is not valid Unicode is refused with 400 on every surface, and nothing is stored. */
describe('invalid text: lone surrogates and NUL on every surface', () => {
  const svc = useService();
  let t: ScimTenant;
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;

  before(async () => {
    t = await scimTenant(svc);
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  it('SCIM: a user name, a nested value or a key with one is 400 invalidValue', async () => {
    for (const bad of INVALID) {
      const state = await databaseState(svc);
      for (const body of [userBody(bad), { ...userBody(unique('u')), name: { givenName: bad } }, { ...userBody(unique('u')), [bad]: 'x' }]) {
        const res = await t.scim('POST', '/Users', { body });
        assertScimError(res, 400, 'invalidValue');
        assert.match(res.body.detail, /must be valid Unicode/);
      }
      assert.equal(await databaseState(svc), state, JSON.stringify(bad));
    }
  });

  it('management API and import: 400 naming where, nothing stored', async () => {
    for (const bad of INVALID) {
      const state = await databaseState(svc);
      const human = await svc.api('POST', `/management/v1/orgs/${project.orgId}/users/human`, {
        token: svc.adminToken,
        body: { userName: unique('u'), profile: { firstName: bad, lastName: 'B' }, email: { email: 'x@example.com' } },
      });
      assert.equal(human.status, 400, human.text);
      assert.match(human.body.message, /profile\.firstName: text must be valid Unicode/);
      const imported = await svc.api('POST', '/admin/v1/import', {
        token: svc.adminToken,
        body: importBody([{ orgId: unique('o'), humanUsers: [humanUser(unique('u'), bad)] }]),
      });
      assert.equal(imported.status, 400, imported.text);
      assert.equal(await databaseState(svc), state, JSON.stringify(bad));
    }
  });

  it('raw bytes that are not UTF-8 (a surrogate encoded on its own) are 400, not silently replaced', async () => {
    const state = await databaseState(svc);
    const bytes = Buffer.concat([
      Buffer.from('{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"a'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('b"}'),
    ]);
    const res = await fetch(new URL(`${t.base}/Users`, svc.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/scim+json' },
      body: bytes,
    });
    assert.equal(res.status, 400, await res.text());
    assert.equal(await databaseState(svc), state);
  });

  it('login UI forms: a NUL in a field is 400 and checks nothing', async () => {
    const client = new LoginClient(svc.url);
    const { uid, csrf } = await client.startLogin({ client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st' });
    const state = await databaseState(svc);
    const res = await client.post(`/ui/login/${uid}/login`, { csrf, loginName: 'a\u0000b', password: 'whatever' });
    assert.equal(res.status, 400, res.text.slice(0, 300));
    assert.match(res.text, /not valid Unicode/);
    assert.equal(await databaseState(svc), state, 'not even a rate-limit count');
  });
});
