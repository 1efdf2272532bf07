import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyedUpdate, rowInsert } from '../../src/common/database/row-batches.js';
import { EventStore } from '../../src/common/events/event-store.js';
import { OrganizationEntity } from '../../src/users/entities/organization.entity.js';
import { OrganizationsService } from '../../src/users/organizations.service.js';
import { useDomain } from './support.js';

/**
 * The unit of work (docs/product-rules.md, "Consistency"): a state change and its events commit
 * together or not at all, alone or in a group of concurrent units (SQLite group commit).
 */
describe('domain: unit of work', () => {
  const domain = useDomain();
  const orgNamed = (name: string) => domain.dataSource.getRepository(OrganizationEntity).findOneBy({ name });

  it('commits a change and its event together', async () => {
    const org = await domain.uow.run((manager) => domain.get(OrganizationsService).insert(manager, domain.adminId, 'Committed'));
    assert.ok(await orgNamed('Committed'));
    assert.deepEqual(
      (await domain.eventsOf(org.id)).map((e) => e.type),
      ['org.added'],
    );
  });

  it('rolls back the change and its event when the unit fails after both were written', async () => {
    let id = '';
    await assert.rejects(
      domain.uow.run(async (manager) => {
        id = (await domain.get(OrganizationsService).insert(manager, domain.adminId, 'Rolled Back')).id;
        throw new Error('fails after the write');
      }),
      /fails after the write/,
    );
    assert.ok(id);
    assert.equal(await orgNamed('Rolled Back'), null);
    assert.deepEqual(await domain.eventsOf(id), []);
  });

  it('rolls back the change when its event cannot be stored', async () => {
    const events = domain.get(EventStore);
    await assert.rejects(
      domain.uow.run(async (manager) => {
        await manager.insert(OrganizationEntity, {
          id: 'uow-orphan-org',
          name: 'Orphan',
          primaryDomain: 'orphan.invalid',
          createdAt: new Date(),
          changedAt: new Date(),
        });
        // An event without its aggregate: the column is NOT NULL, so the database refuses the insert.
        await events.push(manager, {
          type: 'org.added',
          aggregateType: 'org',
          aggregateId: null as never,
          resourceOwner: 'uow-orphan-org',
          editorUserId: null,
        });
      }),
    );
    assert.equal(await orgNamed('Orphan'), null);
  });

  it('fails one unit of a concurrent group alone: the others commit with their events', async () => {
    const orgs = domain.get(OrganizationsService);
    const outcomes = await Promise.allSettled([
      domain.uow.run((manager) => orgs.insert(manager, null, 'Group One')),
      domain.uow.run(async (manager) => {
        await orgs.insert(manager, null, 'Group Failing');
        throw new Error('this unit fails');
      }),
      domain.uow.run((manager) => orgs.insert(manager, null, 'Group Three')),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    for (const name of ['Group One', 'Group Three']) {
      const org = await orgNamed(name);
      assert.ok(org, `${name} was stored`);
      assert.deepEqual(
        (await domain.eventsOf(org.id)).map((e) => e.type),
        ['org.added'],
      );
    }
    assert.equal(await orgNamed('Group Failing'), null);
  });

  it('takes the event positions before events are inserted (MySQL/MariaDB; SQLite orders them by its single writer)', async () => {
    const taken = async () => Number((await domain.dataSource.query('SELECT taken FROM event_positions WHERE id = 1'))[0].taken);
    const mysql = domain.dataSource.options.type === 'mysql';
    const before = await taken();
    await domain.uow.run((manager) => domain.get(OrganizationsService).insert(manager, domain.adminId, 'Positioned'));
    assert.equal(await taken(), before + (mysql ? 1 : 0), 'EventStore.push');
    await domain.uow.writeEvents(
      `INSERT INTO events (id, type, aggregate_type, aggregate_id, resource_owner, editor_user_id, payload, created_at) VALUES ('uow-positions', 'org.added', 'org', 'x', 'instance', NULL, '{}', 0)`,
      [],
    );
    assert.equal(await taken(), before + (mysql ? 2 : 0), 'UnitOfWork.writeEvents');
  });

  it('inserts the rows of concurrent callers (one multi-row statement on MySQL/MariaDB): each hears back once its row is stored; a bad row fails alone', async () => {
    const mysql = domain.dataSource.options.type === 'mysql';
    const insert = rowInsert(
      'INSERT INTO oidc_payloads (model, id_hash, payload) VALUES',
      '(?, ?, ?)',
      mysql ? 'ON DUPLICATE KEY UPDATE payload = VALUES(payload)' : 'ON CONFLICT (model, id_hash) DO UPDATE SET payload = excluded.payload',
    );
    const stored = async (key: string) =>
      (await domain.dataSource.query("SELECT payload FROM oidc_payloads WHERE model = 'UowRows' AND id_hash = ?", [key]))[0]?.payload;
    const rows = Array.from({ length: 40 }, (_, i) => [`row-${i}`, `{"n":${i}}`]);
    // Row 7 has no payload (NOT NULL): refused, alone; row 3 is written twice, the second time last: its value stands.
    const outcomes = await Promise.allSettled([
      ...rows.map(([key, payload], i) => domain.uow.writeRow(insert, ['UowRows', key, i === 7 ? null : payload]).then(() => stored(key))),
      domain.uow.writeRow(insert, ['UowRows', 'row-3', '{"n":"again"}']),
    ]);
    assert.deepEqual(
      outcomes.map((o, i) => `${i}:${o.status}`),
      outcomes.map((_, i) => `${i}:${i === 7 ? 'rejected' : 'fulfilled'}`),
    );
    // Each caller read its row back as soon as it heard: stored before the answer.
    for (const [i, [key, payload]] of rows.entries()) if (i !== 7 && i !== 3) assert.equal((outcomes[i] as PromiseFulfilledResult<string>).value, payload, key);
    assert.equal(await stored('row-3'), '{"n":"again"}');
    assert.equal(await stored('row-7'), undefined);
    const [{ n }] = await domain.dataSource.query("SELECT COUNT(*) AS n FROM oidc_payloads WHERE model = 'UowRows'");
    assert.equal(Number(n), 39);
  });

  it('updates the rows of concurrent callers by key (one UPDATE … IN on MySQL/MariaDB): each hears back once its row is changed, and no other row changes', async () => {
    const keys = Array.from({ length: 30 }, (_, i) => `consumed-${i}`);
    for (const key of [...keys, 'untouched']) {
      await domain.dataSource.query("INSERT INTO oidc_payloads (model, id_hash, payload) VALUES ('UowConsume', ?, '{}')", [key]);
    }
    const consume = keyedUpdate('UPDATE oidc_payloads SET consumed_at = ? WHERE model = ?', 'id_hash', () => [Date.now(), 'UowConsume']);
    const consumedAt = async (key: string) =>
      (await domain.dataSource.query("SELECT consumed_at FROM oidc_payloads WHERE model = 'UowConsume' AND id_hash = ?", [key]))[0].consumed_at;
    const before = Date.now();
    const heard = await Promise.all(keys.map((key) => domain.uow.writeRow(consume, [key]).then(() => consumedAt(key))));
    for (const [i, at] of heard.entries()) assert.ok(Number(at) >= before, `${keys[i]} was consumed before its caller heard back`);
    assert.equal(await consumedAt('untouched'), null);
  });

  it("runs a transaction's own after-commit listener once it has committed, not at another's commit or a rollback", async () => {
    const organizations = domain.get(OrganizationsService);
    let inserted = '';
    const heard: (string | null)[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let registered!: () => void;
    const listening = new Promise<void>((resolve) => (registered = resolve));
    // The queuing transaction stays open while another commits: on MySQL/MariaDB both run at once; on SQLite the
    // other one queues behind it and commits after it.
    const queuing = domain.uow.run(async (manager) => {
      inserted = (await organizations.insert(manager, domain.adminId, 'Heard After Commit')).id;
      domain.uow.afterCommit(manager, () => heard.push(inserted));
      registered();
      await gate;
    });
    await listening;
    // It writes no event: event-writing transactions take the event positions in turn (event-positions.ts).
    const other = domain.uow.run((manager) => manager.query('SELECT 1'));
    if (domain.dataSource.options.type === 'mysql') {
      await other;
      assert.deepEqual(heard, [], "another transaction's commit does not run it");
    }
    release();
    await queuing;
    assert.deepEqual(heard, [inserted], 'once, after its own commit');
    assert.ok(await orgNamed('Heard After Commit'), 'its rows are visible to every connection then');
    await other;
    assert.equal(heard.length, 1, 'once only');
    let rolledBack = 0;
    await assert.rejects(
      domain.uow.run(async (manager) => {
        domain.uow.afterCommit(manager, () => rolledBack++);
        throw new Error('rolled back');
      }),
    );
    await domain.uow.run((manager) => organizations.insert(manager, domain.adminId, 'After The Rollback'));
    assert.equal(rolledBack, 0, 'never after a rollback, nor at a later commit');
  });

  it('tells commit listeners after a commit, not after a rollback', async () => {
    let commits = 0;
    const stop = domain.uow.onCommit(() => commits++);
    try {
      await assert.rejects(domain.uow.run(async () => Promise.reject(new Error('rolled back'))));
      assert.equal(commits, 0);
      await domain.uow.run((manager) => domain.get(OrganizationsService).insert(manager, domain.adminId, 'Heard'));
      assert.equal(commits, 1);
    } finally {
      stop();
    }
  });
});
