import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, processSetup } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { humanUser, importBody, importedIds } from '../import/import.helpers.js';
import type { ImportResponse } from '../import/import.helpers.js';
import { createClient } from '../support/http.js';

const USERS = 20_000;
const ORG = 'sigterm-org';

/**
 * An operator stops the service (SIGTERM: a deploy, a scale-down) while an import runs: the request
 * in flight is finished and answered before the process exits, and everything it acknowledged is
 * stored — nothing is lost, nothing half-written.
 */
describe('operations: SIGTERM during an import', () => {
  let setup: ProcessSetup;

  before(async () => {
    setup = await processSetup();
  });
  after(() => setup?.cleanup());

  it('answers the import in flight, then exits; every acknowledged user is stored with its event', async () => {
    const service = await setup.spawn();
    const api = createClient(service.url);
    const token = setup.adminToken();
    const users = Array.from({ length: USERS }, (_, i) => humanUser(`term-${i}`, `term-user-${i}`));
    const pending = api('POST', '/admin/v1/import', { token, body: importBody([{ orgId: ORG, org: { name: 'Sigterm Org' }, humanUsers: users }], '10m') });
    await eventually(
      'the import has started committing',
      async () => {
        const found = await api('POST', '/admin/v1/events/_search', { token, body: { event_types: ['user.human.added'], resource_owner: ORG, limit: 1 } }).catch(() => null);
        return found?.status === 200 && found.body.events.length > 0 ? true : undefined;
      },
      60_000,
      50,
    );
    const exited = service.stop('SIGTERM');
    const res = await pending;
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.equal(importedIds(res.body as ImportResponse, ORG).length, USERS, 'the whole import was acknowledged');
    const exit = await exited;
    assert.ok(exit.code === 0 || exit.signal === 'SIGTERM', `a clean exit: ${JSON.stringify(exit)}`);

    const stored = await setup.inspect(async (db) => {
      const count = async (sql: string) => Number((await db.query(sql, [ORG]))[0].n);
      return {
        users: await count('SELECT COUNT(*) AS n FROM users WHERE org_id = ?'),
        events: await count(`SELECT COUNT(*) AS n FROM events WHERE resource_owner = ? AND type = 'user.human.added'`),
      };
    });
    assert.deepEqual(stored, { users: USERS, events: USERS });
  });
});
