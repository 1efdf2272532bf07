import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { before, describe, it } from 'node:test';
import { createHuman, createOidcApp, createProject, PASSWORD } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { searchEvents, useService } from '../support/fixtures.js';
import { LoginClient } from './support/login-client.js';

const RP = 'http://127.0.0.1:65530';

/**
 * Checks are atomic (SECURITY.md): an attacker racing parallel guesses against the lockout and the rate
 * limits verifies no more passwords than they allow, and a correct guess arriving once the user is
 * locked is refused, so the race teaches nothing.
 */
describe('parallel guesses against the lockout and the rate limits', () => {
  const svc = useService({ LOGIN_RATE_LIMIT_PER_LOGIN_NAME: '1000', LOGIN_RATE_LIMIT_PER_IP: '1000' });
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  /** Until the user's row counts `n` password checks. */
  async function countedChecks(userId: string, n: number): Promise<void> {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(5)) {
      const [row] = await svc.dataSource.query('SELECT failed_password_checks AS n FROM users WHERE id = ?', [userId]);
      if (Number(row.n) >= n) return;
    }
    assert.fail(`${n} password checks were not counted within 10 s`);
  }

  /** A browser at the login form of a fresh authorization request, ready to post a guess. */
  async function guesser(loginName: string) {
    const client = new LoginClient(svc.url);
    const { uid, csrf } = await client.startLogin({ client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st' });
    return (password: string) => client.post(`/ui/login/${uid}/login`, { csrf, loginName, password });
  }

  it('13 parallel wrong guesses and the right password once ten are counted: locked at the 10th, the right one refused', async () => {
    const user = await createHuman(svc, project.orgId);
    const loginName = `${user.userName}@${project.primaryDomain}`;
    const wrong = await Promise.all(Array.from({ length: 13 }, () => guesser(loginName)));
    const right = await guesser(loginName);
    const guesses = wrong.map((post) => post('wrong-password'));
    // The right password arrives once ten guesses are counted, while they are still being verified (a fixed delay
    // would let it take one of the ten places on a slow database, and then it is refused for a lock of nine).
    await countedChecks(user.userId, 10);
    const answer = await right(PASSWORD);
    const answers = await Promise.all(guesses);
    assert.ok(
      answers.every((a) => a.status === 401),
      'every wrong guess is refused',
    );
    assert.equal(answer.status, 401, 'the right password is refused: the user is locked');
    const [row] = await svc.dataSource.query('SELECT state, failed_password_checks AS n FROM users WHERE id = ?', [user.userId]);
    assert.deepEqual([row.state, Number(row.n)], ['locked', 10]);
    const failed = await searchEvents(svc, { event_types: ['user.human.password.check.failed'], aggregate_id: user.userId });
    assert.equal(failed.length, 10, 'no more than ten passwords were verified');
    assert.equal((await searchEvents(svc, { event_types: ['user.human.password.check.succeeded'], aggregate_id: user.userId })).length, 0);
  });
});

describe('parallel guesses against the per-name rate limit', () => {
  const svc = useService({ LOGIN_RATE_LIMIT_PER_LOGIN_NAME: '5' });
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
  });

  it('12 parallel guesses for one name: five are checked, the rest answered 429 without a check', async () => {
    const user = await createHuman(svc, project.orgId);
    const loginName = `${user.userName}@${project.primaryDomain}`;
    const posts = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const client = new LoginClient(svc.url);
        const { uid, csrf } = await client.startLogin({
          client_id: app.clientId,
          redirect_uri: `${RP}/cb`,
          response_type: 'code',
          scope: 'openid',
          state: 'st',
        });
        return () => client.post(`/ui/login/${uid}/login`, { csrf, loginName, password: 'wrong-password' });
      }),
    );
    const answers = await Promise.all(posts.map((post) => post()));
    assert.equal(answers.filter((a) => a.status === 401).length, 5);
    assert.equal(answers.filter((a) => a.status === 429).length, 7);
    const failed = await searchEvents(svc, { event_types: ['user.human.password.check.failed'], aggregate_id: user.userId });
    assert.equal(failed.length, 5);
  });
});
