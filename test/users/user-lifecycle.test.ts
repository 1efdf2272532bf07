import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PasswordChecks } from '../../src/users/password-checks.service.js';
import { UserLifecycleService } from '../../src/users/user-lifecycle.service.js';
import { createCaller, createOrg, searchEvents, useService } from '../support/fixtures.js';

/** Service-level tests of user state changes on the real database, seen through the API. */
describe('user lifecycle', () => {
  const svc = useService();
  let lifecycle: UserLifecycleService;
  let checks: PasswordChecks;
  let orgId: string;

  before(async () => {
    lifecycle = svc.app.get(UserLifecycleService);
    checks = svc.app.get(PasswordChecks);
    orgId = (await createOrg(svc)).id;
  });

  async function human(userName: string): Promise<string> {
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'A', lastName: 'B' }, email: { email: `${userName}@example.com` }, password: 'secret-password' },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId;
  }

  it("deactivation stops the user's tokens at once; reactivation restores them; each writes one event", async () => {
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
    assert.deepEqual(
      events.map((e) => e.type.type),
      ['user.deactivated', 'user.reactivated'],
    );
  });

  const source = { clientIpHash: 'a'.repeat(64) };
  /** One attempt as the login UI makes it: counted first, then recorded as its password turned out. */
  async function attempt(userId: string, right: boolean): Promise<'refused' | 'ok' | 'wrong'> {
    if (!(await checks.reserve(userId))) return 'refused';
    if (right) return (await checks.succeeded(userId)) ? 'ok' : 'refused';
    await checks.failed(userId, source);
    return 'wrong';
  }

  it('locks at the instance limit of failed checks, then refuses even the right password; unlock resets the count', async () => {
    const userId = await human('locky');
    for (let i = 1; i <= 10; i++) assert.equal(await attempt(userId, false), 'wrong', `failure ${i}`);
    const [row] = await svc.dataSource.query('SELECT state, failed_password_checks AS n FROM users WHERE id = ?', [userId]);
    assert.deepEqual([row.state, Number(row.n)], ['locked', 10]);
    assert.equal(await attempt(userId, true), 'refused', 'a locked user is refused whatever the password');
    assert.equal((await searchEvents(svc, { aggregate_id: userId, event_types: ['user.locked'] })).length, 1);
    const failed = await searchEvents(svc, { aggregate_id: userId, event_types: ['user.human.password.check.failed'] });
    assert.equal(failed.length, 10);
    assert.ok(
      failed.every((e) => e.editor.userId === null && e.payload.clientIpHash === source.clientIpHash),
      'no victim as editor; the hashed source',
    );

    await lifecycle.unlock(null, orgId, userId);
    const [after] = await svc.dataSource.query('SELECT state, failed_password_checks AS n FROM users WHERE id = ?', [userId]);
    assert.deepEqual([after.state, Number(after.n)], ['active', 0]);
  });

  it('counts attempts before they are verified: parallel guesses cannot verify more passwords than the lockout allows', async () => {
    const userId = await human('racy');
    const reserved = await Promise.all(Array.from({ length: 13 }, () => checks.reserve(userId)));
    assert.equal(reserved.filter(Boolean).length, 10, 'ten attempts counted, three refused before any verification');
    assert.equal(await checks.reserve(userId), false, 'the right password, coming later, is not even checked');
  });

  it('a correct password gives back its own attempt and records its event; the completed sign-in resets the count; a user locked meanwhile is refused after all', async () => {
    const userId = await human('resetty');
    const count = async () => Number((await svc.dataSource.query('SELECT failed_password_checks AS n FROM users WHERE id = ?', [userId]))[0].n);
    assert.equal(await attempt(userId, false), 'wrong');
    assert.equal(await attempt(userId, true), 'ok');
    assert.equal(await count(), 1, 'earlier failures stay counted until every factor is done');
    await checks.signInCompleted(userId);
    assert.equal(await count(), 0);
    const events = await searchEvents(svc, {
      aggregate_id: userId,
      event_types: ['user.human.password.check.failed', 'user.human.password.check.succeeded'],
      asc: true,
    });
    assert.deepEqual(
      events.map((e) => [e.type.type, e.editor.userId]),
      [
        ['user.human.password.check.failed', null],
        ['user.human.password.check.succeeded', userId],
      ],
    );

    assert.equal(await checks.reserve(userId), true);
    await lifecycle.lock(null, orgId, userId);
    assert.equal(await checks.succeeded(userId), false, 'verified right, but locked by now');
    assert.equal(await checks.reserve('no-such-user'), false);
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
