import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LoginUsers } from '../../src/login/login-users.js';
import { createOrg, useService } from '../support/fixtures.js';

/** The login UI's login-name rules (docs/product-rules.md, "OpenID Connect and OAuth") on the real database: its one statement per look-up. */
describe('login names resolved by the login UI', () => {
  const svc = useService();
  let users: LoginUsers;
  let a: { id: string; primaryDomain: string };
  let b: { id: string; primaryDomain: string };
  const ids: Record<string, string> = {};

  async function human(org: { id: string }, userName: string): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'A', lastName: 'B' }, email: { email: 'x@example.com' }, password: 'secret-password' },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId;
  }

  before(async () => {
    users = svc.app.get(LoginUsers);
    a = await createOrg(svc);
    b = await createOrg(svc);
    ids.samA = await human(a, 'sam');
    ids.samB = await human(b, 'sam');
    ids.solo = await human(a, 'Solo');
    ids.odd = await human(b, 'x@nowhere.test');
    ids.kim = await human(b, `kim@${a.primaryDomain}`);
  });

  it('name@domain names the user of that organization, case-insensitively, with its login name', async () => {
    const user = await users.find(` SAM@${a.primaryDomain.toUpperCase()} `);
    assert.equal(user?.id, ids.samA);
    assert.equal(user?.loginName, `sam@${a.primaryDomain}`);
    assert.equal(user?.type, 'human');
    assert.equal(user?.state, 'active');
    assert.equal(user?.passwordChangeRequired, false);
    assert.match(user?.passwordHash ?? '', /^\$2b\$/);
    assert.equal((await users.find(`sam@${b.primaryDomain}`))?.id, ids.samB);
  });

  it('a bare user name works only while it is unique in the instance', async () => {
    assert.equal((await users.find('solo'))?.loginName, `Solo@${a.primaryDomain}`);
    assert.equal(await users.find('sam'), null);
    assert.equal(await users.find('nobody'), null);
    assert.equal(await users.find('  '), null);
  });

  it('the last @ separates a domain only when an organization has it', async () => {
    assert.equal((await users.find('x@nowhere.test'))?.loginName, `x@nowhere.test@${b.primaryDomain}`);
    // Organization a has that domain and no user kim: the name is not looked up as a bare name.
    assert.equal(await users.find(`kim@${a.primaryDomain}`), null);
    assert.equal((await users.find(`kim@${a.primaryDomain}@${b.primaryDomain}`))?.id, ids.kim);
    assert.equal(await users.find(`nobody@${a.primaryDomain}`), null);
  });
});
