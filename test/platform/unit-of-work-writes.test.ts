import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { UnitOfWork } from '../../src/common/database/unit-of-work.js';
import { unique, useService } from '../support/fixtures.js';

const INSERT = 'INSERT INTO oidc_payloads (model, id_hash, payload, expires_at) VALUES (?, ?, ?, NULL)';

/**
 * UnitOfWork.write, the path of oidc-provider's token, code and session rows: on SQLite the writes of
 * one event-loop turn share one commit with the units of work queued beside them. Each caller hears
 * back only for its own statement, and only once it is stored.
 */
describe('single-statement writes of the unit of work', () => {
  const svc = useService();
  let uow: UnitOfWork;
  before(async () => {
    uow = svc.app.get(UnitOfWork);
  });

  const count = async (prefix: string) =>
    Number((await svc.dataSource.query('SELECT COUNT(*) AS n FROM oidc_payloads WHERE id_hash LIKE ?', [`${prefix}%`]))[0].n);

  it('stores every write issued together, and each is readable once its promise resolves', async () => {
    const prefix = unique('w');
    await Promise.all(Array.from({ length: 25 }, (_, i) => uow.write(INSERT, ['Test', `${prefix}-${i}`, '{}'])));
    assert.equal(await count(prefix), 25);
  });

  it('a failing statement rejects alone; the others of its group, and a unit of work among them, are stored', async () => {
    const prefix = unique('f');
    await uow.write(INSERT, ['Test', `${prefix}-taken`, '{}']);
    const results = await Promise.allSettled([
      uow.write(INSERT, ['Test', `${prefix}-a`, '{}']),
      uow.write(INSERT, ['Test', `${prefix}-taken`, '{}']), // primary key conflict
      uow.run((manager) => manager.query(INSERT, ['Test', `${prefix}-unit`, '{}'])),
      uow.write(INSERT, ['Test', `${prefix}-b`, '{}']),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    const failure = (results[1] as PromiseRejectedResult).reason as { driverError?: { code?: string }; code?: string };
    assert.match(String(failure.driverError?.code ?? failure.code), /CONSTRAINT|ER_DUP_ENTRY/);
    assert.equal(await count(prefix), 4);
  });

  it('updates and deletes report nothing but are applied', async () => {
    const prefix = unique('u');
    await uow.write(INSERT, ['Test', `${prefix}-1`, '{}']);
    await Promise.all([
      uow.write('UPDATE oidc_payloads SET payload = ? WHERE model = ? AND id_hash = ?', ['{"x":1}', 'Test', `${prefix}-1`]),
      uow.write(INSERT, ['Test', `${prefix}-2`, '{}']),
    ]);
    const rows: { payload: string }[] = await svc.dataSource.query('SELECT payload FROM oidc_payloads WHERE id_hash = ?', [`${prefix}-1`]);
    assert.equal(rows[0].payload, '{"x":1}');
    await uow.write('DELETE FROM oidc_payloads WHERE id_hash LIKE ?', [`${prefix}%`]);
    assert.equal(await count(prefix), 0);
  });

  it('runEach: items share one transaction; one that fails is rolled back alone, with what it wrote before failing', async () => {
    const prefix = unique('e');
    await uow.write(INSERT, ['Test', `${prefix}-taken`, '{}']);
    const outcomes = await uow.runEach(['a', 'taken', 'c'], async (manager, name) => {
      await manager.query(INSERT, ['Test', `${prefix}-${name}-first`, '{}']);
      await manager.query(INSERT, ['Test', `${prefix}-${name}`, '{}']); // `taken` conflicts here, after its first row
      return name;
    });
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'rejected')),
      ['a', 'rejected', 'c'],
    );
    const rows: { id_hash: string }[] = await svc.dataSource.query('SELECT id_hash FROM oidc_payloads WHERE id_hash LIKE ? ORDER BY id_hash', [`${prefix}%`]);
    assert.deepEqual(
      rows.map((r) => r.id_hash.slice(prefix.length)),
      ['-a', '-a-first', '-c', '-c-first', '-taken'],
      "the failed item's first row is gone with it",
    );
  });
});
