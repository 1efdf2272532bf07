import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { before, describe, it } from 'node:test';
import argon2 from 'argon2';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { LoginClient } from './support/login-client.js';
import { useService } from '../support/fixtures.js';

const RP = 'http://127.0.0.1:65530';
const PASSWORD = 'Imported-Argon-1';
const BURST = 12;

/**
 * Imported hashes as a weapon (SECURITY.md, "Checks are atomic"): the largest argon2id hash the import
 * accepts (256 MiB, t=4) against a burst of anonymous wrong guesses. Only a few verifications run at
 * once; the rest are answered 503 with Retry-After, not checked and not counted. Peak RSS and CPU of the
 * burst are printed for the record (BENCHMARKS.md), not asserted: they depend on the machine.
 */
describe('a burst of wrong passwords against the costliest accepted imported hash', () => {
  const svc = useService();
  let project: { orgId: string; projectId: string; primaryDomain: string };
  let app: OidcApp;
  const users: { id: string; loginName: string }[] = [];

  before(async () => {
    project = await createProject(svc);
    app = await createOidcApp(svc, project, { authMethod: 'client_secret_basic' }, RP);
    const hash = await argon2.hash(PASSWORD, { type: argon2.argon2id, memoryCost: 256 * 1024, timeCost: 4, parallelism: 1 });
    const humanUsers = Array.from({ length: BURST }, (_, i) => {
      const userName = `argon-${i}`;
      users.push({ id: randomUUID(), loginName: `${userName}@${project.primaryDomain}` });
      return {
        userId: users[i].id,
        user: { userName, profile: { firstName: 'A', lastName: 'R' }, email: { email: `${userName}@example.com` }, hashedPassword: { value: hash } },
      };
    });
    const imported = await svc.api('POST', '/admin/v1/import', { token: svc.adminToken, body: { dataOrgs: { orgs: [{ orgId: project.orgId, humanUsers }] } } });
    assert.equal(imported.status, 200, imported.text);
    assert.deepEqual(
      imported.body.errors.filter((e: { type: string }) => e.type === 'user'),
      [],
    );
  });

  async function loginForm(loginName: string) {
    const client = new LoginClient(svc.url);
    const { uid, csrf } = await client.startLogin({ client_id: app.clientId, redirect_uri: `${RP}/cb`, response_type: 'code', scope: 'openid', state: 'st' });
    return (password: string) => client.post(`/ui/login/${uid}/login`, { csrf, loginName, password });
  }

  it('runs a bounded number at a time, answers the rest 503 with Retry-After, and counts none of those', async () => {
    const posts = await Promise.all(users.map((u) => loginForm(u.loginName)));
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const cpu = process.cpuUsage();
    const started = Date.now();
    const answers = await Promise.all(posts.map((post) => post('wrong-password')));
    clearInterval(sampler);
    const used = process.cpuUsage(cpu);
    console.log(
      `burst of ${BURST} wrong passwords, argon2id 256 MiB t=4: peak RSS +${Math.round((peak - rssBefore) / 2 ** 20)} MiB, ` +
        `CPU ${Math.round((used.user + used.system) / 1000)} ms in ${Date.now() - started} ms, answers ${answers.map((a) => a.status).join(' ')}`,
    );
    const busy = answers.filter((a) => a.status === 503);
    assert.ok(busy.length >= 2, 'past the running and waiting verifications, attempts are refused');
    assert.ok(
      busy.every((a) => Number(a.headers.get('retry-after')) > 0),
      'with Retry-After',
    );
    assert.ok(
      answers.every((a) => a.status === 503 || a.status === 401),
      'the others are checked and wrong',
    );
    for (const [i, answer] of answers.entries()) {
      const [row] = await svc.dataSource.query('SELECT failed_password_checks AS n FROM users WHERE id = ?', [users[i].id]);
      assert.equal(Number(row.n), answer.status === 503 ? 0 : 1, `${users[i].loginName}: ${answer.status}`);
    }
  });

  it('the right password still signs in once the burst is over, and re-hashes to bcrypt', async () => {
    const post = await loginForm(users[0].loginName);
    assert.equal((await post(PASSWORD)).status, 303);
    const [row] = await svc.dataSource.query('SELECT password_hash AS h FROM users WHERE id = ?', [users[0].id]);
    assert.match(row.h, /^\$2b\$/);
  });

  it('the import refuses what a single guess could turn into a gigabyte', async () => {
    const tail = `c29tZXNhbHRzYWx0$${'A'.repeat(43)}`;
    const res = await svc.api('POST', '/admin/v1/import', {
      token: svc.adminToken,
      body: {
        dataOrgs: {
          orgs: [
            {
              orgId: project.orgId,
              humanUsers: [
                {
                  userId: randomUUID(),
                  user: {
                    userName: 'gigabyte',
                    profile: { firstName: 'G', lastName: 'B' },
                    email: { email: 'g@example.com' },
                    hashedPassword: { value: `$argon2id$v=19$m=1048576,t=4,p=64$${tail}` },
                  },
                },
              ],
            },
          ],
        },
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.match(JSON.stringify(res.body.errors), /above the limit of 262144 KiB/);
  });
});
