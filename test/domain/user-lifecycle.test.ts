import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode } from '../../src/common/errors/domain-error.js';
import { UserEntity } from '../../src/users/entities/user.entity.js';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { UsersService } from '../../src/users/users.service.js';
import { useDomain } from './support.js';

/** User state changes (docs/product-rules.md, "Domain"): each stored with its event, repeats are no-ops. */
describe('domain: user lifecycle', () => {
  const domain = useDomain();
  let n = 0;
  const newHuman = () =>
    domain.get(UsersService).createHuman(domain.adminId, domain.defaultOrgId, {
      userName: `lifecycle-${++n}`,
      firstName: 'Life',
      lastName: 'Cycle',
      email: `lifecycle-${n}@example.test`,
      password: 'a long enough password',
    });
  const stateOf = async (id: string) => (await domain.dataSource.getRepository(UserEntity).findOneByOrFail({ id })).state;

  it('creates a human with its event, and hashes the password', async () => {
    const user = await newHuman();
    const row = await domain.dataSource.getRepository(UserEntity).findOneByOrFail({ id: user.id });
    assert.equal(row.state, 'active');
    assert.ok(row.passwordHash && !row.passwordHash.includes('a long enough password'));
    assert.deepEqual(
      (await domain.eventsOf(user.id)).map((e) => [e.type, e.editorUserId]),
      [['user.human.added', domain.adminId]],
    );
  });

  it('refuses a password shorter than the instance minimum, storing nothing', async () => {
    const before = await domain.dataSource.getRepository(UserEntity).count();
    await assert.rejects(
      domain
        .get(UsersService)
        .createHuman(null, domain.defaultOrgId, { userName: 'short-password', firstName: 'S', lastName: 'P', email: 's@example.test', password: 'short' }),
      (error: { code?: string }) => error.code === ErrorCode.InvalidArgument,
    );
    assert.equal(await domain.dataSource.getRepository(UserEntity).count(), before);
  });

  it('deactivates, reactivates, locks and unlocks, one event per change', async () => {
    const user = await newHuman();
    const lifecycle = domain.get(UserLifecycleService);
    await lifecycle.deactivate(domain.adminId, domain.defaultOrgId, user.id);
    assert.equal(await stateOf(user.id), 'inactive');
    await lifecycle.deactivate(domain.adminId, domain.defaultOrgId, user.id); // a repeat: no event
    await lifecycle.reactivate(domain.adminId, domain.defaultOrgId, user.id);
    await lifecycle.lock(domain.adminId, domain.defaultOrgId, user.id);
    assert.equal(await stateOf(user.id), 'locked');
    await lifecycle.unlock(domain.adminId, domain.defaultOrgId, user.id);
    assert.equal(await stateOf(user.id), 'active');
    assert.deepEqual(
      (await domain.eventsOf(user.id)).map((e) => e.type),
      ['user.human.added', 'user.deactivated', 'user.reactivated', 'user.locked', 'user.unlocked'],
    );
  });

  it('refuses to lock an inactive user', async () => {
    const user = await newHuman();
    const lifecycle = domain.get(UserLifecycleService);
    await lifecycle.deactivate(null, domain.defaultOrgId, user.id);
    await assert.rejects(lifecycle.lock(null, domain.defaultOrgId, user.id), (error: { code?: string }) => error.code === ErrorCode.FailedPrecondition);
    assert.equal(await stateOf(user.id), 'inactive');
  });

  it('removes a user for good: the row goes, the id stays taken, the events stay', async () => {
    const user = await newHuman();
    await domain.get(UserLifecycleService).remove(domain.adminId, domain.defaultOrgId, user.id);
    assert.equal(await domain.dataSource.getRepository(UserEntity).existsBy({ id: user.id }), false);
    assert.deepEqual(
      (await domain.eventsOf(user.id)).map((e) => e.type),
      ['user.human.added', 'user.removed'],
    );
    // OpenID Connect Core §2: a `sub` is never reassigned; the import refuses ids listed here.
    assert.deepEqual(await domain.dataSource.query('SELECT id FROM removed_users WHERE id = ?', [user.id]), [{ id: user.id }]);
  });

  it('keeps the last active IAM_OWNER', async () => {
    const lifecycle = domain.get(UserLifecycleService);
    const client = await domain.dataSource.getRepository(UserEntity).findOneByOrFail({ orgId: domain.defaultOrgId, userName: 'admin-client' });
    await lifecycle.deactivate(null, domain.defaultOrgId, client.id); // the other IAM_OWNER of the bootstrap
    try {
      await assert.rejects(lifecycle.deactivate(null, domain.defaultOrgId, domain.adminId), (error: { code?: string }) => error.code === ErrorCode.Conflict);
      await assert.rejects(lifecycle.lock(null, domain.defaultOrgId, domain.adminId), (error: { code?: string }) => error.code === ErrorCode.Conflict);
      assert.equal(await stateOf(domain.adminId), 'active');
    } finally {
      await lifecycle.reactivate(null, domain.defaultOrgId, client.id);
    }
  });
});
