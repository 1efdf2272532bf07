import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { splitImport } from './import-batches.js';

const users = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ userId: `${prefix}${i}` }));
const ids = (org: { humanUsers?: unknown[] }) => (org.humanUsers ?? []).map((u) => (u as { userId: string }).userId);

describe('splitImport', () => {
  it('cuts organizations across batches of at most N users, in order, naming the org in each', () => {
    const batches = splitImport(
      [
        { orgId: 'a', org: { name: 'A' }, humanUsers: users('a', 5) },
        { orgId: 'b', humanUsers: users('b', 2) },
      ],
      3,
      '1m',
    );
    assert.deepEqual(
      batches.map((b) => b.users),
      [3, 3, 1],
    );
    assert.deepEqual(
      batches.map((b) => b.body.dataOrgs.orgs.map((o) => [o.orgId, ids(o)])),
      [
        [['a', ['a0', 'a1', 'a2']]],
        [
          ['a', ['a3', 'a4']],
          ['b', ['b0']],
        ],
        [['b', ['b1']]],
      ],
    );
    assert.ok(batches.every((b) => b.body.timeout === '1m'));
    assert.deepEqual(batches[1].body.dataOrgs.orgs[0].org, { name: 'A' }, 'org details go with every part');
  });

  it('keeps an organization without users, so that it is created', () => {
    const batches = splitImport([{ orgId: 'empty', org: { name: 'E' } }], 10);
    assert.deepEqual(batches, [{ body: { dataOrgs: { orgs: [{ orgId: 'empty', org: { name: 'E' }, humanUsers: [] }] } }, users: 0 }]);
  });

  it('refuses a batch size below 1', () => {
    assert.throws(() => splitImport([], 0), RangeError);
  });
});
