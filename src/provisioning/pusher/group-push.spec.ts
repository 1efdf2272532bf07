import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pushGroup } from './group-push.js';
import type { GroupPushContext } from './group-push.js';
import type { Answer } from './scim-answer.js';

const X = '?excludedAttributes=members';

/**
 * A target that answers from a script: each request is kept; `answers` by "METHOD path", else 200 with `{}`. `record`
 * is the members the target was sent, kept as the worker keeps it.
 */
function target(answers: Record<string, Answer> = {}, patch = true, recorded: string[] = [], maxOperations = 100) {
  const sent: { method: string; path: string; body: any }[] = [];
  const record = new Set(recorded);
  const ctx: GroupPushContext = {
    patch,
    membersPerPatch: 2,
    maxOperations,
    send: async (method, path, body) => {
      sent.push({ method, path, body });
      return answers[`${method} ${path}`] ?? { kind: 'ok', status: 200, body: {} };
    },
    recorded: async () => new Set(record),
    record: async (change) => {
      if ('all' in change) {
        record.clear();
        for (const id of change.all) record.add(id);
      } else if ('added' in change) for (const id of change.added) record.add(id);
      else for (const id of change.removed) record.delete(id);
    },
  };
  return { ctx, sent, record };
}

const remote = (displayName: string, externalId = 'g1'): Answer => ({ kind: 'ok', status: 200, body: { id: 'r1', displayName, externalId } });

describe('group push (docs/provisioning.md, "Groups")', () => {
  it('changes only what differs from the record: its name, then members added in chunks and removed one operation each', async () => {
    const { ctx, sent, record } = target({ [`GET /Groups/r1${X}`]: remote('old') }, true, ['a', 'b', 'x', 'y', 'z']);
    const outcome = await pushGroup(ctx, 'g1', 'r1', false, { displayName: 'new', members: ['a', 'b', 'c', 'd', 'e'] });
    assert.deepEqual(outcome, { kind: 'pushed', remoteId: 'r1', status: 200 });
    assert.deepEqual(
      sent.map((r) => `${r.method} ${r.path}`),
      [`GET /Groups/r1${X}`, ...Array(5).fill('PATCH /Groups/r1')],
      'the group is never read with its members',
    );
    assert.deepEqual(sent[1].body.Operations, [{ op: 'replace', path: 'displayName', value: 'new' }]);
    assert.deepEqual(
      sent.slice(2).map((r) => r.body.Operations),
      [
        [{ op: 'add', path: 'members', value: [{ value: 'c' }, { value: 'd' }] }],
        [{ op: 'add', path: 'members', value: [{ value: 'e' }] }],
        [
          { op: 'remove', path: 'members[value eq "x"]' },
          { op: 'remove', path: 'members[value eq "y"]' },
        ],
        [{ op: 'remove', path: 'members[value eq "z"]' }],
      ],
    );
    assert.deepEqual([...record].sort(), ['a', 'b', 'c', 'd', 'e']);
  });

  it("removals: at most the target's maxOperations per PATCH", async () => {
    const { ctx, sent } = target({ [`GET /Groups/r1${X}`]: remote('g') }, true, ['a', 'b', 'c'], 1);
    await pushGroup(ctx, 'g1', 'r1', false, { displayName: 'g', members: [] });
    assert.deepEqual(
      sent.slice(1).map((r) => r.body.Operations.length),
      [1, 1, 1],
    );
  });

  it('a group already as recorded is one GET; without PATCH support, one PUT with every member', async () => {
    const same = target({ [`GET /Groups/r1${X}`]: remote('g') }, true, ['a']);
    await pushGroup(same.ctx, 'g1', 'r1', false, { displayName: 'g', members: ['a'] });
    assert.deepEqual(
      same.sent.map((r) => r.method),
      ['GET'],
    );
    const put = target({ [`GET /Groups/r1${X}`]: remote('g') }, false, ['a']);
    await pushGroup(put.ctx, 'g1', 'r1', false, { displayName: 'g', members: ['b'] });
    assert.deepEqual(
      put.sent.map((r) => [r.method, r.body?.members]),
      [
        ['GET', undefined],
        ['PUT', [{ value: 'b' }]],
      ],
    );
    assert.equal(put.sent[1].body.externalId, 'g1');
    assert.deepEqual([...put.record], ['b']);
  });

  it('a 409 on create: ours (by externalId) is brought up to date; one of the same name only is a conflict', async () => {
    const lookUp = `GET /Groups?filter=${encodeURIComponent('externalId eq "g1"')}&count=2&excludedAttributes=members`;
    const ours = target({
      'POST /Groups': { kind: 'conflict', status: 409 },
      [lookUp]: { kind: 'ok', status: 200, body: { Resources: [{ id: 'r1', externalId: 'g1' }] } },
      [`GET /Groups/r1${X}`]: remote('g'),
    });
    assert.deepEqual(await pushGroup(ours.ctx, 'g1', null, false, { displayName: 'g', members: ['a'] }), { kind: 'pushed', remoteId: 'r1', status: 200 });
    const theirs = target({ 'POST /Groups': { kind: 'conflict', status: 409 }, [lookUp]: { kind: 'ok', status: 200, body: { Resources: [] } } });
    const outcome = await pushGroup(theirs.ctx, 'g1', null, false, { displayName: 'g', members: [] });
    assert.equal(outcome.kind, 'conflict');
    assert.deepEqual(
      theirs.sent.map((r) => r.method),
      ['POST', 'GET'],
      'nothing adopted',
    );
  });

  it('a gone group is deleted (a 404 is done); a 404 on read re-creates it from an empty record; a failed chunk keeps what was done', async () => {
    const gone = target({ 'DELETE /Groups/r1': { kind: 'not_found', status: 404 } });
    assert.deepEqual(await pushGroup(gone.ctx, 'g1', 'r1', false, undefined), { kind: 'removed', status: 404 });
    const recreated = target(
      {
        [`GET /Groups/r1${X}`]: { kind: 'not_found', status: 404 },
        'POST /Groups': { kind: 'ok', status: 201, body: { id: 'r2', displayName: 'g', externalId: 'g1' } },
      },
      true,
      ['a'],
    );
    assert.deepEqual(await pushGroup(recreated.ctx, 'g1', 'r1', false, { displayName: 'g', members: ['a'] }), { kind: 'pushed', remoteId: 'r2', status: 200 });
    assert.deepEqual(recreated.sent.at(-1)?.body.Operations, [{ op: 'add', path: 'members', value: [{ value: 'a' }] }], 'the new group gets its members');
    const failed = target({ [`GET /Groups/r1${X}`]: remote('g'), 'PATCH /Groups/r1': { kind: 'retry', status: 500, error: 'answered 500' } });
    assert.equal((await pushGroup(failed.ctx, 'g1', 'r1', false, { displayName: 'g', members: ['a'] })).kind, 'failed');
    assert.equal(failed.record.size, 0, 'nothing recorded that the target did not take');
  });
});
