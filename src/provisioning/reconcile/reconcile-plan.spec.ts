import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contains, planOf } from './reconcile-plan.js';
import type { RemoteUser } from './remote-users.js';

const remote = (id: string, resource: Record<string, unknown>): RemoteUser => ({
  id,
  externalId: typeof resource.externalId === 'string' ? resource.externalId : undefined,
  userName: typeof resource.userName === 'string' ? resource.userName : undefined,
  resource: { id, ...resource },
});
const doc = (id: string, userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  externalId: id,
  userName,
  active: true,
  ...extra,
});

describe('reconcile plan (docs/provisioning.md, "Reconcile")', () => {
  it('adopts a namesake without externalId (userName case-insensitive, one remote user for one person); a namesake of someone else is no adoption', () => {
    const plan = planOf(
      [remote('r1', { userName: 'ADA' }), remote('r2', { userName: 'bob', externalId: 'someone-else' })],
      [
        { id: 'a', doc: doc('a', 'ada') },
        { id: 'b', doc: doc('b', 'bob') },
      ],
      new Set(),
      'deactivate',
    );
    assert.deepEqual(plan.adopt, [{ localId: 'a', remoteId: 'r1', userName: 'ada' }]);
    assert.deepEqual(plan.create, [{ localId: 'b', remoteId: null, userName: 'bob' }]);
    assert.deepEqual([plan.update, plan.deactivate, plan.delete], [[], [], []], 'a remote user of someone else is left alone');
  });

  it('removes only users of ours out of scope or gone, as onRemove says; one already inactive needs no deactivation', () => {
    const users = [
      remote('r1', { externalId: 'out', userName: 'out', active: true }),
      remote('r2', { externalId: 'gone', userName: 'gone' }),
      remote('r3', { externalId: 'gone-inactive', userName: 'gi', active: false }),
      remote('r4', { externalId: 'stranger', userName: 'stranger', active: true }),
    ];
    const people = [{ id: 'out', doc: undefined }];
    const known = new Set(['gone', 'gone-inactive']);
    assert.deepEqual(
      planOf(users, people, known, 'deactivate').deactivate.map((i) => i.localId),
      ['out', 'gone'],
    );
    assert.deepEqual(
      planOf(users, people, known, 'delete').delete.map((i) => i.localId),
      ['out', 'gone', 'gone-inactive'],
    );
  });

  it('compares what is pushed as a subset of what the target holds, multi-valued attributes as sets', () => {
    const ours = doc('a', 'ada', { name: { givenName: 'Ada' }, emails: [{ value: 'a@x', primary: true }] });
    const same = {
      ...ours,
      userName: 'ADA',
      id: 'r',
      meta: {},
      name: { givenName: 'Ada', familyName: 'Added there' },
      emails: [
        { value: 'a@x', primary: true, type: 'work' },
        { value: 'a@x', primary: true },
      ],
    };
    assert.equal(contains(ours, same), true);
    assert.equal(contains(ours, { ...same, name: { givenName: 'Drifted' } }), false);
    assert.equal(contains(ours, { ...same, emails: [...same.emails, { value: 'other@x' }] }), false, 'a value we do not push');
    assert.equal(contains(ours, { ...same, active: false }), false);
    assert.equal(contains(ours, { ...same, externalId: undefined }), false);
  });
});
