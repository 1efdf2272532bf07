import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginUsers } from '../../src/login/login-users.js';
import { countRows, unique, useService } from '../support/fixtures.js';
import { humanUser, importBody, postImport, userErrors } from '../import/import.helpers.js';
import { assertScimError, createUser, scimTenant, userBody } from '../scim/scim-helpers.js';
import type { ScimTenant } from '../scim/scim-helpers.js';

/** Names that looked like `ada…` and were stored on SQLite, 409 on MariaDB, and could never sign in. */
const LOOK_ALIKES = (base: string) => [
  `${base} `,
  ` ${base}`,
  `${base}\t`,
  `${base}\u00a0`,
  `\u200b${base}`,
  `${base}\u200d`,
  `${base}\u2060`,
  `\ufeff${base}`,
  `${base}\u0007`,
];

/** One user name rule for every surface (docs/product-rules.md, "Domain"), the same 400 on SQLite and MariaDB. */
describe('userName: one rule on every surface, and the login finds the name as created', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  it('SCIM refuses white space and invisible characters around a userName with 400 invalidValue, storing nothing', async () => {
    const users = await countRows(svc, 'users');
    for (const name of LOOK_ALIKES(unique('ada'))) {
      const res = await t.scim('POST', '/Users', { body: userBody(name) });
      assertScimError(res, 400, 'invalidValue');
      assert.match(res.body.detail, /"userName" must not contain white space/, JSON.stringify(name));
    }
    assert.equal(await countRows(svc, 'users'), users);
  });

  it('the management API and the import refuse the same names, naming userName', async () => {
    const orgId = t.orgId;
    const users = await countRows(svc, 'users');
    for (const name of LOOK_ALIKES(unique('ada'))) {
      const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
        token: svc.adminToken,
        body: { userName: name, profile: { firstName: 'A', lastName: 'L' }, email: { email: 'ada@example.com' } },
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(
        res.body.details.map((d: { field: string }) => d.field),
        ['userName'],
      );
    }
    const items = LOOK_ALIKES(unique('imp')).map((name, i) => humanUser(unique(`bad${i}`), name));
    const errors = userErrors(await postImport(svc, importBody([{ orgId, humanUsers: items }])));
    for (const item of items) assert.match(errors.get(item.userId) ?? '(imported)', /^user\.userName must not contain white space/);
    assert.equal(await countRows(svc, 'users'), users);
  });

  it('a created user is found by its name as created, and with white space or a zero-width space pasted around it', async () => {
    const { primaryDomain } = (await svc.api('GET', `/admin/v1/orgs/${t.orgId}`, { token: svc.adminToken })).body;
    const name = unique('Ärger');
    const created = await createUser(t, userBody(name));
    const logins = svc.app.get(LoginUsers);
    for (const typed of [`${name}@${primaryDomain}`, ` ${name}@${primaryDomain}\u00a0`, `\u200b${name.toUpperCase()}@${primaryDomain}\t`]) {
      assert.equal((await logins.find(typed))?.id, created.id, JSON.stringify(typed));
    }
  });
});
