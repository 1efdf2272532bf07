import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { createCaller, createOrg, searchEvents } from '../support/fixtures.js';
import { startService } from '../support/service.js';
import type { TestService } from '../support/service.js';

/** Service-level tests of user state changes on the real database, seen through the API. */
describe('user lifecycle', () => {
  let svc: TestService;
  let lifecycle: UserLifecycleService;
  let orgId: string;

  before(async () => {
    svc = await startService();
    lifecycle = svc.app.get(UserLifecycleService);
    orgId = (await createOrg(svc)).id;
  });
  after(() => svc?.close());

  async function human(userName: string): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'A', lastName: 'B' }, email: { email: `${userName}@example.com` }, password: 'secret-password' },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId;
  }

  it('deactivation stops the user\'s tokens at once; reactivation restores them; each writes one event', async () => {
    const caller = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    const projects = `/management/v1/orgs/${orgId}/projects`;
    assert.equal((await svc.api('POST', projects, { token: caller.token, body: { name: 'p1' } })).status, 201);

    const user = await lifecycle.deactivate(null, orgId, caller.userId);
    assert.equal(user.state, 'inactive');
    assert.equal((await svc.api('POST', projects, { token: caller.token, body: { name: 'p2' } })).status, 401);
    await lifecycle.deactivate(null, orgId, caller.userId); // idempotent: no second event

    await lifecycle.reactivate(null, orgId, caller.userId);
    assert.equal((await svc.api('POST', projects, { token: caller.token, body: { name: 'p3' } })).status, 201);

    const events = await searchEvents(svc, { aggregate_id: caller.userId, event_types: ['user.deactivated', 'user.reactivated'], asc: true });
    assert.deepEqual(events.map((e) => e.type.type), ['user.deactivated', 'user.reactivated']);
  });

  it('locks after the instance limit of failed password checks, and unlock resets the count', async () => {
    const userId = await human('locky');
    for (let i = 1; i <= 9; i++) assert.deepEqual(await lifecycle.recordPasswordCheck(userId, false), { locked: false }, `failure ${i}`);
    assert.deepEqual(await lifecycle.recordPasswordCheck(userId, false), { locked: true });
    const [row] = await svc.dataSource.query('SELECT state, failed_password_checks AS n FROM users WHERE id = ?', [userId]);
    assert.equal(row.state, 'locked');
    assert.equal(Number(row.n), 10);
    const locked = await searchEvents(svc, { aggregate_id: userId, event_types: ['user.locked'] });
    assert.equal(locked.length, 1);
    assert.equal((await searchEvents(svc, { aggregate_id: userId, event_types: ['user.human.password.check.failed'] })).length, 10);

    await lifecycle.unlock(null, orgId, userId);
    const [after] = await svc.dataSource.query('SELECT state, failed_password_checks AS n FROM users WHERE id = ?', [userId]);
    assert.deepEqual([after.state, Number(after.n)], ['active', 0]);
  });

  it('a successful check resets the failure count, and records its event also when there is nothing to reset', async () => {
    const userId = await human('resetty');
    await lifecycle.recordPasswordCheck(userId, false);
    await lifecycle.recordPasswordCheck(userId, false);
    assert.deepEqual(await lifecycle.recordPasswordCheck(userId, true), { locked: false });
    assert.deepEqual(await lifecycle.recordPasswordCheck(userId, true), { locked: false });
    const [row] = await svc.dataSource.query('SELECT failed_password_checks AS n FROM users WHERE id = ?', [userId]);
    assert.equal(Number(row.n), 0);
    const checks = await searchEvents(svc, { aggregate_id: userId, event_types: ['user.human.password.check.failed', 'user.human.password.check.succeeded'], asc: true });
    assert.deepEqual(checks.map((e) => e.type.type), ['user.human.password.check.failed', 'user.human.password.check.failed', 'user.human.password.check.succeeded', 'user.human.password.check.succeeded']);
    await assert.rejects(lifecycle.recordPasswordCheck('no-such-user', true), /user not found/);
  });

  it('a success the caller saw no failures for is its event alone, in the user\'s organization', async () => {
    const userId = await human('quick');
    const [before] = await svc.dataSource.query('SELECT version AS v, failed_password_checks AS n FROM users WHERE id = ?', [userId]);
    assert.deepEqual(await lifecycle.recordPasswordCheck(userId, true, 0), { locked: false });
    const [after] = await svc.dataSource.query('SELECT version AS v, failed_password_checks AS n FROM users WHERE id = ?', [userId]);
    assert.deepEqual([Number(after.v), Number(after.n)], [Number(before.v), 0]);
    const [event] = await svc.dataSource.query('SELECT type, aggregate_type AS at, resource_owner AS ro, editor_user_id AS editor, payload FROM events WHERE aggregate_id = ? AND type = ?', [userId, 'user.human.password.check.succeeded']);
    assert.deepEqual({ ...event }, { type: 'user.human.password.check.succeeded', at: 'user', ro: orgId, editor: userId, payload: '{}' });
    await assert.rejects(lifecycle.recordPasswordCheck('no-such-user', true, 0), /user not found/);
    assert.equal((await svc.dataSource.query('SELECT COUNT(*) AS n FROM events WHERE aggregate_id = ?', ['no-such-user']))[0].n, 0);

    // Failures seen: the success resets them through the full path.
    await lifecycle.recordPasswordCheck(userId, false);
    await lifecycle.recordPasswordCheck(userId, true, 1);
    const [reset] = await svc.dataSource.query('SELECT failed_password_checks AS n FROM users WHERE id = ?', [userId]);
    assert.equal(Number(reset.n), 0);
  });

  it('a password change stores a new hash and its event carries no secret', async () => {
    const userId = await human('changer');
    const [before] = await svc.dataSource.query('SELECT password_hash AS h, version AS v FROM users WHERE id = ?', [userId]);
    await lifecycle.setPassword(null, orgId, userId, 'another-password', { changeRequired: true });
    const [after] = await svc.dataSource.query('SELECT password_hash AS h, version AS v, password_change_required AS r FROM users WHERE id = ?', [userId]);
    assert.notEqual(after.h, before.h);
    assert.match(after.h, /^\$2b\$04\$/);
    assert.equal(Number(after.v), Number(before.v) + 1);
    assert.equal(Boolean(Number(after.r)), true);
    const [event] = await searchEvents(svc, { aggregate_id: userId, event_types: ['user.human.password.changed'] });
    assert.deepEqual(event.payload, { changeRequired: true });
    await assert.rejects(lifecycle.setPassword(null, orgId, userId, 'short'), /password policy/);
  });

  it('removal deletes the user and its credentials, keeps the events, and is 404 for another org', async () => {
    const other = await createOrg(svc);
    const caller = await createCaller(svc, orgId, { org: ['ORG_USER_MANAGER'] });
    await assert.rejects(lifecycle.remove(null, other.id, caller.userId), /user not found/);
    await lifecycle.remove(null, orgId, caller.userId);
    assert.equal((await svc.dataSource.query('SELECT id FROM users WHERE id = ?', [caller.userId])).length, 0);
    assert.equal((await svc.dataSource.query('SELECT id FROM personal_access_tokens WHERE user_id = ?', [caller.userId])).length, 0);
    assert.equal((await svc.dataSource.query('SELECT user_id FROM memberships WHERE user_id = ?', [caller.userId])).length, 0);
    assert.equal((await svc.api('GET', '/healthz')).status, 200);
    assert.equal((await svc.api('POST', `/management/v1/orgs/${orgId}/projects`, { token: caller.token, body: { name: 'x' } })).status, 401);
    const events = await searchEvents(svc, { aggregate_id: caller.userId, asc: true });
    assert.equal(events[0].type.type, 'user.machine.added');
    assert.equal(events.at(-1)!.type.type, 'user.removed');
  });
});
