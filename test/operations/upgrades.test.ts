import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { processSetup } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { run } from '../scim/child-process.js';
import { REPO_ROOT } from '../support/conformance.js';
import { runToExit } from '../support/process.js';

const CLI = `${REPO_ROOT}/bin/portcullis.js`;
const NEWER = 'FromTheFuture1999999999999';

/** An operator upgrading: the CLI, several processes starting at once, and a database newer than the code. */
describe('operations: upgrades', () => {
  let setup: ProcessSetup;

  before(async () => {
    setup = await processSetup();
  });
  after(() => setup?.cleanup());

  const cli = (...args: string[]) => run(process.execPath, [CLI, 'migrate', ...args], REPO_ROOT, { PATH: process.env.PATH ?? '', ...setup.env });
  const appliedMigrations = () => setup.inspect(async (db) => (await db.query('SELECT name FROM migrations')).map((r: { name: string }) => r.name) as string[]);

  it('portcullis migrate --check lists what is pending (exit 1), migrate applies it, then --check is up to date (exit 0)', async () => {
    const pending = await cli('--check');
    assert.equal(pending.code, 1, pending.output);
    assert.match(pending.output, /\d+ pending:\n {2}InitialSchema\d+/);
    const applied = await cli();
    assert.equal(applied.code, 0, applied.output);
    assert.match(applied.output, /^applied InitialSchema\d+$/m);
    const again = await cli();
    assert.equal(again.code, 0);
    assert.match(again.output, /up to date: nothing to apply/);
    const check = await cli('--check');
    assert.equal(check.code, 0, check.output);
    assert.match(check.output, /up to date: \d+ migrations applied/);
  });

  it('several processes starting together on an empty database all come up, with each migration applied once', async () => {
    const fresh = await processSetup();
    try {
      const services = await Promise.all([0, 1, 2].map(() => fresh.spawn()));
      for (const service of services) assert.equal((await fetch(`${service.url}/healthz`)).status, 200);
      const names = await fresh.inspect(async (db) => (await db.query('SELECT name FROM migrations')).map((r: { name: string }) => r.name) as string[]);
      assert.equal(new Set(names).size, names.length, `each once: ${names.join(', ')}`);
      assert.ok(names.length >= 10);
    } finally {
      await fresh.cleanup();
    }
  });

  it('a database upgraded by a newer version is refused at start-up and by the CLI (exit 2), naming the migration; nothing changes', async () => {
    await setup.inspect((db) => db.query('INSERT INTO migrations (timestamp, name) VALUES (?, ?)', [1999999999999, NEWER]));
    const before = await appliedMigrations();
    const start = await runToExit(setup.env);
    assert.equal(start.code, 2, start.output);
    assert.match(start.output, new RegExp(`schema is newer than this version of Portcullis: it holds migration\\(s\\) ${NEWER}`));
    for (const args of [[], ['--check']]) {
      const res = await cli(...args);
      assert.equal(res.code, 2, res.output);
      assert.match(res.output, new RegExp(NEWER));
    }
    assert.deepEqual(await appliedMigrations(), before);
    const tables = await setup.inspect(async (db) => (await db.query('SELECT COUNT(*) AS n FROM organizations'))[0].n);
    assert.equal(Number(tables), 0, 'the refused start bootstrapped nothing');
  });
});
