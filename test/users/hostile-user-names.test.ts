import assert from 'node:assert/strict';
import { openRegistration } from '../support/registration.js';
import { before, describe, it } from 'node:test';
import { LoginClient, csrfOf } from '../attack/support/login-client.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import { countRows, unique, useService } from '../support/fixtures.js';
import { humanUser, importBody, userErrors } from '../import/import.helpers.js';
import { PATCH_OP, assertScimError, createUser, scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';
import { HOSTILE_NAMES } from '../support/hostile-user-names.js';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
/** The e-mail address is not made from the hostile name: only the name is on trial. */
const scimUser = (userName: string) => userBody(userName, { emails: [{ value: 'scim@example.com', type: 'work', primary: true }] });

/** The same hostile names on every surface that writes a userName: the same refusal, nothing stored. */
describe('userName: the hostile names of an upstream are refused on every surface', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    await openRegistration(svc);
    t = await scimTenant(svc);
  });
  const management = (method: string, path: string, body: unknown) => svc.api(method, `/management/v1/orgs/${t.orgId}${path}`, { token: svc.adminToken, body });
  const human = (userName: string) => ({ userName, profile: { firstName: 'A', lastName: 'L' }, email: { email: 'ada@example.com' } });

  it('the control: a name with an @domain suffix is accepted (an upstream’s UPN is a valid user name)', async () => {
    const res = await management('POST', '/users/human', human(`${unique('ada')}@contoso.example`));
    assert.equal(res.status, 201, res.text);
  });

  for (const [kind, hostile] of Object.entries(HOSTILE_NAMES)) {
    it(`the management API refuses ${kind} on create (human, machine) and change, naming userName`, async () => {
      const name = unique('ada');
      const existing = (await management('POST', '/users/human', human(name))).body.userId;
      const users = await countRows(svc, 'users');
      const attempts = [
        await management('POST', '/users/human', human(hostile(unique('h')))),
        await management('POST', '/users/machine', { userName: hostile(unique('m')), name: 'Machine' }),
        await management('PATCH', `/users/${existing}`, { userName: hostile(unique('p')) }),
      ];
      for (const res of attempts) {
        assert.equal(res.status, 400, res.text);
        // A NUL is refused in any field before the body is read (the same 400, its message naming the field).
        assert.match(`${res.body.message} ${res.body.details.map((d: { field: string }) => d.field)}`, /userName/);
      }
      assert.equal(await countRows(svc, 'users'), users);
      assert.equal((await management('GET', `/users/${existing}`, undefined)).body.userName, name, 'the name did not change');
    });

    it(`SCIM refuses ${kind} in POST, PUT, PATCH and Bulk with 400 invalidValue`, async () => {
      const existing = await createUser(t, userBody(unique('scim')));
      const users = await countRows(svc, 'users');
      assertScimError(await t.scim('POST', '/Users', { body: scimUser(hostile(unique('post'))) }), 400, 'invalidValue');
      assertScimError(await t.scim('PUT', `/Users/${existing.id}`, { body: scimUser(hostile(unique('put'))) }), 400, 'invalidValue');
      const patch = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'userName', value: hostile(unique('patch')) }] };
      assertScimError(await t.scim('PATCH', `/Users/${existing.id}`, { body: patch }), 400, 'invalidValue');
      const bulk = await t.scim('POST', '/Bulk', {
        body: { schemas: [BULK], Operations: [{ method: 'POST', path: '/Users', bulkId: 'b1', data: scimUser(hostile(unique('bulk'))) }] },
      });
      // A NUL is refused in any string before the request is read: the whole Bulk is a 400 naming the field.
      const refused = bulk.status === 400 ? bulk.body : bulk.body.Operations?.[0]?.response;
      assert.equal(refused?.status, '400', bulk.text);
      assert.equal(refused.scimType, 'invalidValue');
      assert.match(refused.detail, /userName/);
      assert.equal(await countRows(svc, 'users'), users);
      assert.equal((await t.scim('GET', `/Users/${existing.id}`)).body.userName, existing.userName);
    });

    it(`the import refuses ${kind}, naming user.userName`, async () => {
      const users = await countRows(svc, 'users');
      const item = humanUser(unique('imp'), hostile(unique('imp')), { email: { email: 'imported@example.com', isEmailVerified: true } });
      const res = await svc.api('POST', '/admin/v1/import', { token: svc.adminToken, body: importBody([{ orgId: t.orgId, humanUsers: [item] }]) });
      // A NUL is refused in any string before the request is read: the whole import is a 400 naming the field.
      const refusal = res.status === 400 ? res.body.message : userErrors(res.body).get(item.userId);
      assert.match(refusal ?? '(imported)', /user\.userName(: text)? must /, res.text);
      assert.equal(await countRows(svc, 'users'), users);
    });
  }

  it('self-registration refuses every one of them; nothing is created', async () => {
    const project = await createProject(svc, t.orgId);
    const app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' });
    const users = await countRows(svc, 'users');
    for (const [kind, hostile] of Object.entries(HOSTILE_NAMES)) {
      const client = new LoginClient(svc.url);
      const { uid } = await client.startLogin({
        client_id: app.clientId,
        redirect_uri: 'http://127.0.0.1:65530/cb',
        response_type: 'code',
        scope: 'openid',
        state: 'st',
      });
      const page = await client.get(`/ui/login/${uid}?form=register`);
      const res = await client.post(`/ui/login/${uid}/register`, {
        csrf: csrfOf(page.text),
        userName: hostile(unique('reg')),
        firstName: 'Reg',
        lastName: 'Istrant',
        email: 'reg@example.com',
        password: 'Registered-Pass-1',
      });
      assert.equal(res.status, 400, `${kind}: ${res.status}`);
    }
    assert.equal(await countRows(svc, 'users'), users);
  });
});
