import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { userEventStatement } from '../../../src/users/queries/user-events.js';
import type { OrganizationEntity } from '../../../src/users/entities/organization.entity.js';
import { openQueryDatabase } from './query-database.js';
import type { QueryDatabase } from './query-database.js';

describe("users queries: a user's event written from the user's row", () => {
  let db: QueryDatabase;
  let org: OrganizationEntity;

  before(async () => {
    db = await openQueryDatabase();
    org = await db.org();
  });
  after(() => db?.close());

  /** Runs the statement and answers how many events the user has since. */
  async function write(userId: string, onlyActive?: boolean): Promise<number> {
    const { sql, parameters } = userEventStatement('user.human.password.check.succeeded', userId, { onlyActive });
    await db.dataSource.query(sql, parameters);
    // The drivers report an INSERT's rows differently: count what was written instead.
    const [row]: { n: number | string }[] = await db.dataSource.query('SELECT COUNT(*) AS n FROM events WHERE aggregate_id = ?', [userId]);
    return Number(row.n);
  }

  it("writes one event of the user's organization, caused by the user, without payload", async () => {
    const user = await db.user(org);
    assert.equal(await write(user.id), 1);
    const [event]: Record<string, unknown>[] = await db.dataSource.query('SELECT * FROM events WHERE aggregate_id = ?', [user.id]);
    assert.equal(event.type, 'user.human.password.check.succeeded');
    assert.equal(event.aggregate_type, 'user');
    assert.equal(event.resource_owner, org.id);
    assert.equal(event.editor_user_id, user.id);
    assert.equal(event.payload, '{}');
  });

  it('writes nothing for an unknown user, nor, with onlyActive, for a locked one', async () => {
    assert.equal(await write('nobody'), 0);
    const locked = await db.user(org, { state: 'locked' });
    assert.equal(await write(locked.id, true), 0);
    assert.equal(await write(locked.id, false), 1);
  });
});
