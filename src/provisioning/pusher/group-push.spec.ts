import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pushGroup } from './group-push.js';
import type { GroupPushContext } from './group-push.js';
import type { Answer } from './scim-answer.js';

/** A target that answers from a script: each request is kept; `answers` by "METHOD path", else 200 with `{}`. */
function target(answers: Record<string, Answer> = {}, patch = true) {
  const sent: { method: string; path: string; body: any }[] = [];
  const ctx: GroupPushContext = {
    patch,
    membersPerPatch: 2,
    send: async (method, path, body) => {
      sent.push({ method, path, body });
      return answers[`${method} ${path}`] ?? { kind: 'ok', status: 200, body: {} };
    },
  };
  return { ctx, sent };
}

const remote = (displayName: string, members: string[]): Answer => ({
  kind: 'ok',
  status: 200,
  body: { id: 'r1', displayName, members: members.map((value) => ({ value })) },
});

describe('group push (docs/provisioning.md, "Groups")', () => {
  it('changes only what differs from the target: its name, then members added and removed in chunks', async () => {
    const { ctx, sent } = target({ 'GET /Groups/r1': remote('old', ['a', 'b', 'x', 'y', 'z']) });
    const outcome = await pushGroup(ctx, 'g1', 'r1', false, { displayName: 'new', members: ['a', 'b', 'c', 'd', 'e'] });
    assert.deepEqual(outcome, { kind: 'pushed', remoteId: 'r1', status: 200 });
    assert.deepEqual(
      sent.map((r) => r.method),
      ['GET', 'PATCH', 'PATCH', 'PATCH', 'PATCH', 'PATCH'],
    );
    assert.deepEqual(sent[1].body.Operations, [{ op: 'replace', path: 'displayName', value: 'new' }]);
    assert.deepEqual(
      sent.slice(2).map((r) => r.body.Operations[0]),
      [
        { op: 'add', path: 'members', value: [{ value: 'c' }, { value: 'd' }] },
        { op: 'add', path: 'members', value: [{ value: 'e' }] },
        { op: 'remove', path: 'members[value eq "x" or value eq "y"]' },
        { op: 'remove', path: 'members[value eq "z"]' },
      ],
    );
  });

  it('a group already as wanted is one GET; without PATCH support, one PUT with every member', async () => {
    const same = target({ 'GET /Groups/r1': remote('g', ['a']) });
    await pushGroup(same.ctx, 'g1', 'r1', false, { displayName: 'g', members: ['a'] });
    assert.deepEqual(
      same.sent.map((r) => r.method),
      ['GET'],
    );
    const put = target({ 'GET /Groups/r1': remote('g', ['a']) }, false);
    await pushGroup(put.ctx, 'g1', 'r1', false, { displayName: 'g', members: ['b'] });
    assert.deepEqual(
      put.sent.map((r) => [r.method, r.body?.members]),
      [
        ['GET', undefined],
        ['PUT', [{ value: 'b' }]],
      ],
    );
    assert.equal(put.sent[1].body.externalId, 'g1');
  });

  it('a 409 on create: ours (by externalId) is brought up to date; one of the same name only is a conflict', async () => {
    const lookUp = `GET /Groups?filter=${encodeURIComponent('externalId eq "g1"')}&count=2`;
    const ours = target({
      'POST /Groups': { kind: 'conflict', status: 409 },
      [lookUp]: { kind: 'ok', status: 200, body: { Resources: [{ id: 'r1', externalId: 'g1' }] } },
      'GET /Groups/r1': remote('g', []),
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

  it('a gone group is deleted (a 404 is done); a 404 on read re-creates it; a failed chunk fails the push', async () => {
    const gone = target({ 'DELETE /Groups/r1': { kind: 'not_found', status: 404 } });
    assert.deepEqual(await pushGroup(gone.ctx, 'g1', 'r1', false, undefined), { kind: 'removed', status: 404 });
    const recreated = target({
      'GET /Groups/r1': { kind: 'not_found', status: 404 },
      'POST /Groups': { kind: 'ok', status: 201, body: { id: 'r2', displayName: 'g' } },
    });
    assert.deepEqual(await pushGroup(recreated.ctx, 'g1', 'r1', false, { displayName: 'g', members: [] }), { kind: 'pushed', remoteId: 'r2', status: 201 });
    const failed = target({ 'GET /Groups/r1': remote('g', []), 'PATCH /Groups/r1': { kind: 'retry', status: 500, error: 'answered 500' } });
    assert.equal((await pushGroup(failed.ctx, 'g1', 'r1', false, { displayName: 'g', members: ['a'] })).kind, 'failed');
  });
});
