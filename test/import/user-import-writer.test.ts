import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { UserImportWriter } from '../../src/users/user-import.writer.js';
import type { ImportedHuman } from '../../src/users/user-import.writer.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { BCRYPT_HASH, storedCounts } from './import.helpers.js';

function human(orgId: string, userName = unique('w')): ImportedHuman {
  return {
    id: unique('w-id'),
    orgId,
    userName,
    firstName: 'W',
    lastName: 'Riter',
    displayName: 'W Riter',
    nickName: null,
    preferredLanguage: 'en',
    gender: null,
    email: `${userName}@example.com`,
    emailVerified: false,
    phone: null,
    phoneVerified: false,
    passwordHash: BCRYPT_HASH,
    passwordChangeRequired: false,
  };
}

/**
 * The import's write path on a real database: a batch whose pre-checks were overtaken (another writer
 * took a userName in between) falls back to one transaction per user, so only the clashing user fails.
 */
describe('UserImportWriter', () => {
  const svc = useService();
  let writer: UserImportWriter;
  let editor: string;
  before(async () => {
    writer = svc.app.get(UserImportWriter);
    [{ id: editor }] = await svc.dataSource.query(`SELECT id FROM users WHERE user_name = 'admin-client'`);
  });

  it('writes a batch whole: users, their contacts and one user.human.added each', async () => {
    const org = await createOrg(svc);
    const users = Array.from({ length: 1500 }, () => human(org.id));
    const result = await writer.insertBatch(editor, users);
    assert.deepEqual(result, { inserted: users.map((u) => u.id), rejected: [] });
    assert.deepEqual(await storedCounts(svc, org.id), { users: 1500, events: 1500 });
    const [contacts] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM user_contacts WHERE org_id = ?', [org.id]);
    assert.equal(Number(contacts.n), 1500);
  });

  it('retries a failed batch user by user: only the clashing users are rejected, the others committed with their events', async () => {
    const org = await createOrg(svc);
    const clash = human(org.id);
    await writer.insertBatch(editor, [clash]);
    const users = [human(org.id), { ...human(org.id, clash.userName.toUpperCase()) }, human(org.id), { ...human(org.id), id: clash.id }];
    const result = await writer.insertBatch(editor, users);
    assert.deepEqual(result.inserted, [users[0].id, users[2].id]);
    assert.deepEqual(result.rejected, [
      { userId: users[1].id, message: `the userName "${clash.userName.toUpperCase()}" already exists in organization ${org.id}` },
      { userId: clash.id, message: `a user with id "${clash.id}" already exists` },
    ]);
    assert.deepEqual(await storedCounts(svc, org.id), { users: 3, events: 3 });
  });

  it('creates a missing organization once and reports an existing one', async () => {
    const orgId = unique('w-org');
    assert.equal(await writer.ensureOrg(editor, orgId, orgId), 'created');
    assert.equal(await writer.ensureOrg(editor, orgId, orgId), 'exists');
    assert.equal(await writer.ensureOrg(editor, unique('w-other'), orgId), 'conflict', 'the primary domain of the name is taken');
  });
});
