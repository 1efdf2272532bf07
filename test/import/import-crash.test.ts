import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/common/config/config.js';
import { createDataSource } from '../../src/common/database/data-source.js';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { createClient } from '../support/http.js';
import { spawnService } from '../support/process.js';
import { humanUser, importBody, importedIds, userErrors } from './import.helpers.js';
import type { ImportResponse } from './import.helpers.js';
import { ENTITIES } from '../../src/entities.js';

const USERS = 40_000;

/**
 * A crash (kill -9) mid-import leaves only whole users, events matching users one to one.
 * The service runs as a real process, is killed with SIGKILL while an import is under way, and the
 * database is then inspected directly.
 */
describe('an import killed with kill -9', () => {
  let dataDir: string;
  let database: TestDatabase;
  let env: Record<string, string>;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'portcullis-crash-'));
    database = await createTestDatabase();
    env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(database.url ? { DATABASE_URL: database.url } : {}) };
  });
  after(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves whole users with one event each, and a re-run after restart completes the import', async () => {
    const orgId = 'crash-org';
    const users = Array.from({ length: USERS }, (_, i) => humanUser(`crash-${i}`, `crash-user-${i}`));
    const body = importBody([{ orgId, org: { name: 'Crash Org' }, humanUsers: users }], '10m');

    const first = await spawnService(env);
    try {
      const token = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
      const api = createClient(first.url);
      const pending = api('POST', '/admin/v1/import', { token, body }).then(
        (res) => `answered ${res.status}`,
        () => 'connection lost',
      );
      await untilFirstUserCommitted(api, token, orgId);
      const exit = await first.stop('SIGKILL');
      assert.equal(exit.signal, 'SIGKILL');
      assert.equal(await pending, 'connection lost', 'the import was cut off before it answered');
    } finally {
      await first.stop('SIGKILL');
    }

    const stored = await inspect(env);
    assert.ok(stored.users > 0 && stored.users < USERS, `${stored.users} of ${USERS} users were stored before the kill`);
    assert.equal(stored.events, stored.users, 'one user.human.added per stored user');
    assert.equal(stored.usersWithoutEvent, 0);
    assert.equal(stored.eventsWithoutUser, 0);
    assert.equal(stored.usersWithoutContact, 0);

    const token = readFileSync(join(dataDir, 'admin.pat'), 'utf8').trim();
    const second = await spawnService(env);
    try {
      const rerun = await createClient(second.url)('POST', '/admin/v1/import', { token, body });
      assert.equal(rerun.status, 200, rerun.text.slice(0, 500));
      const response = rerun.body as ImportResponse;
      assert.equal(importedIds(response, orgId).length, USERS - stored.users);
      assert.equal(userErrors(response).size, stored.users, 'the users stored before the kill are reported as existing');
    } finally {
      await second.stop('SIGTERM');
    }
    const final = await inspect(env);
    assert.deepEqual(final, { users: USERS, events: USERS, usersWithoutEvent: 0, eventsWithoutUser: 0, usersWithoutContact: 0 });
  });
});

/** Kills as soon as the first batch has committed, so that the import is surely mid-way. */
async function untilFirstUserCommitted(api: ReturnType<typeof createClient>, token: string, orgId: string): Promise<void> {
  const query = { event_types: ['user.human.added'], resource_owner: orgId, limit: 1 };
  for (let i = 0; i < 1200; i++) {
    // A busy server may drop an idle keep-alive connection; a failed poll is simply repeated.
    const found = await api('POST', '/admin/v1/events/_search', { token, body: query }).catch(() => null);
    if (found?.status === 200 && found.body.events.length > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail('the import did not start within a minute');
}

/** Reads the database of the (stopped) service directly. */
async function inspect(env: Record<string, string>) {
  const dataSource = createDataSource(loadConfig(env).database, ENTITIES);
  await dataSource.initialize();
  try {
    const count = async (sql: string) => Number((await dataSource.query(sql))[0].n);
    return {
      users: await count(`SELECT COUNT(*) AS n FROM users WHERE org_id = 'crash-org'`),
      events: await count(`SELECT COUNT(*) AS n FROM events WHERE resource_owner = 'crash-org' AND type = 'user.human.added'`),
      usersWithoutEvent: await count(
        `SELECT COUNT(*) AS n FROM users u WHERE u.org_id = 'crash-org' AND NOT EXISTS (SELECT 1 FROM events e WHERE e.aggregate_id = u.id AND e.type = 'user.human.added')`,
      ),
      eventsWithoutUser: await count(
        `SELECT COUNT(*) AS n FROM events e WHERE e.resource_owner = 'crash-org' AND e.type = 'user.human.added' AND NOT EXISTS (SELECT 1 FROM users u WHERE u.id = e.aggregate_id)`,
      ),
      usersWithoutContact: await count(
        `SELECT COUNT(*) AS n FROM users u WHERE u.org_id = 'crash-org' AND NOT EXISTS (SELECT 1 FROM user_contacts c WHERE c.user_id = u.id)`,
      ),
    };
  } finally {
    await dataSource.destroy();
  }
}
