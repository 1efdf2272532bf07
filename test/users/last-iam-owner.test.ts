import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DomainError, ErrorCode } from '../../src/common/errors/domain-error.js';
import { MembershipsService } from '../../src/users/memberships.service.js';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { databaseState } from '../attack/support/db-state.js';
import { useService } from '../support/fixtures.js';

const isConflict = (error: unknown) => error instanceof DomainError && error.code === ErrorCode.Conflict && /last active IAM_OWNER/.test(error.message);

/** Domain services on the real database: the instance always keeps an active IAM_OWNER. */
describe('the last active IAM_OWNER', () => {
  const svc = useService();
  let lifecycle: UserLifecycleService;
  let memberships: MembershipsService;
  let orgId: string;
  let admin: string;
  let adminClient: string;

  before(async () => {
    lifecycle = svc.app.get(UserLifecycleService);
    memberships = svc.app.get(MembershipsService);
    const rows: { id: string; org_id: string; user_name: string }[] = await svc.dataSource.query(
      "SELECT id, org_id, user_name FROM users WHERE user_name IN ('admin', 'admin-client')",
    );
    admin = rows.find((r) => r.user_name === 'admin')!.id;
    adminClient = rows.find((r) => r.user_name === 'admin-client')!.id;
    orgId = rows[0].org_id;
  });

  it('may lose one of two owners, then keeps the other: no removal, deactivation, lock or demotion', async () => {
    await lifecycle.deactivate(null, orgId, adminClient);
    const before = await databaseState(svc);
    await assert.rejects(lifecycle.remove(null, orgId, admin), isConflict);
    await assert.rejects(lifecycle.deactivate(null, orgId, admin), isConflict);
    await assert.rejects(lifecycle.lock(null, orgId, admin), isConflict);
    await assert.rejects(memberships.setInstanceMember(null, admin, []), isConflict);
    assert.equal(await databaseState(svc), before, 'nothing changed');
  });

  it('counts only active owners, and lets go once another owner is active again', async () => {
    await lifecycle.reactivate(null, orgId, adminClient);
    await lifecycle.lock(null, orgId, admin);
    await assert.rejects(lifecycle.deactivate(null, orgId, adminClient), isConflict, 'the locked admin does not count');
    await lifecycle.unlock(null, orgId, admin);
    await lifecycle.deactivate(null, orgId, adminClient);
    await lifecycle.reactivate(null, orgId, adminClient);
  });
});
