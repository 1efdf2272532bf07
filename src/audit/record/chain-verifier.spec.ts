import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventDto } from '../../admin/dto/events.dto.js';
import { CHAIN_START } from './audit-chain.js';
import { recordsOf } from './audit-record.js';
import { verifyChain } from './chain-verifier.js';

function event(sequence: number, payload: Record<string, unknown>): { eventId: string; event: EventDto } {
  return {
    eventId: `e${sequence}`,
    event: {
      sequence: String(sequence),
      creationDate: new Date(1_700_000_000_000 + sequence).toISOString(),
      type: { type: 'user.human.added', localized: { key: 'EventTypes.user.human.added', localizedMessage: 'Person added' } },
      aggregate: { id: `u${sequence}`, type: { type: 'user', localized: { key: 'AggregateTypes.user', localizedMessage: 'User' } }, resourceOwner: 'o1' },
      editor: { userId: 'admin' },
      payload: payload as EventDto['payload'],
    },
  };
}

const names = { organizations: new Map([['o1', 'Acme']]), users: new Map([['admin', 'root']]) };
const lines = (records: unknown[]) => records.map((r, i) => ({ line: i + 1, text: `<110>1 t h portcullis 1 x - ${JSON.stringify(r)}` }));

describe('audit records and their chain', () => {
  const records = recordsOf([event(10, { userName: 'a' }), event(11, { token: 'abc', nested: { clientSecret: 's' } }), event(12, {})], names, {
    sequence: 0,
    chain: CHAIN_START,
  });

  it('numbers records from 1, names the organization and the actor, and redacts secrets at any depth', () => {
    assert.deepEqual(
      records.map((r) => r.sequence),
      [1, 2, 3],
    );
    assert.deepEqual(records[0].organization, { id: 'o1', name: 'Acme' });
    assert.equal(records[0].actor.userName, 'root');
    assert.deepEqual(records[1].changes, { token: { after: '[redacted]' }, nested: { after: { clientSecret: '[redacted]' } } });
  });

  it('rebuilds the same records from the same events (a batch sent again carries the same chain)', () => {
    assert.deepEqual(recordsOf([event(10, { userName: 'a' })], names, { sequence: 0, chain: CHAIN_START })[0], records[0]);
  });

  it('verifies a whole file, skipping identical repeats', () => {
    const verdict = verifyChain(lines([...records, records[2]]));
    assert.equal(verdict.ok, true);
    assert.equal(verdict.ok && verdict.count, 3);
    assert.equal(verdict.ok && verdict.duplicates, 1);
  });

  it('names a record edited, removed, swapped or repeated with other content', () => {
    const edited = structuredClone(records);
    edited[1].target.id = 'other';
    assert.match(String((verifyChain(lines(edited)) as { problem: string }).problem), /record 2 \(line 2\) was altered/);
    assert.match(String((verifyChain(lines([records[0], records[2]])) as { problem: string }).problem), /record 2 is missing/);
    assert.match(String((verifyChain(lines([records[1], records[0], records[2]])) as { problem: string }).problem), /record 1 is out of order/);
    const repeat = { ...records[1], time: 'later' };
    assert.match(String((verifyChain(lines([...records, repeat])) as { problem: string }).problem), /record 2 \(line 4\): a repeat that differs/);
  });

  it('starts at --from, trusting that record', () => {
    const verdict = verifyChain(lines(records.slice(1)), 2);
    assert.equal(verdict.ok && verdict.last, 3);
  });
});
