import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TargetSettings } from '../provisioning-settings.js';
import { groupMarks } from './dirty-marks.js';

const settings = (pushGroups: TargetSettings['pushGroups'], groupIds: string[] = []): TargetSettings => ({
  auth: { type: 'bearer' },
  scope: groupIds.length > 0 ? { users: 'groups', groupIds } : { users: 'all', groupIds: [] },
  pushGroups,
  userName: 'userName',
  onRemove: 'deactivate',
});
const event = (position: number, type: string, aggregateId: string, userId?: string) => ({
  position,
  type,
  aggregateType: type.split('.')[0],
  aggregateId,
  payload: userId ? { userId } : {},
});

describe('group marks (docs/provisioning.md, "Groups")', () => {
  const events = [
    event(1, 'group.added', 'g1'),
    event(2, 'user.human.added', 'u1'),
    event(3, 'group.member.added', 'chosen', 'u1'),
    event(4, 'group.changed', 'g1'),
    event(5, 'group.member.removed', 'g2', 'u2'),
  ];

  it('every event of a group marks it at its latest position (whether it is pushed is decided at its push)', () => {
    assert.deepEqual(
      groupMarks(events, settings('scoped')).marks,
      new Map([
        ['g1', 4],
        ['chosen', 3],
        ['g2', 5],
      ]),
    );
    assert.deepEqual(groupMarks(events, settings('none')).marks, groupMarks(events, settings('scoped')).marks);
  });

  it('with "all" and a group scope, a member joining or leaving a chosen group is named (its other groups change)', () => {
    assert.deepEqual(groupMarks(events, settings('all', ['chosen'])).movedUsers, new Map([['u1', 3]]));
    assert.deepEqual(groupMarks(events, settings('scoped', ['chosen'])).movedUsers, new Map());
  });
});
