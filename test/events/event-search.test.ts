import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createCaller, createOrg, searchEvents, useService } from '../support/fixtures.js';
import type { SearchedEvent } from '../support/fixtures.js';

describe('admin API: event search', () => {
  const svc = useService();
  let orgA: { id: string; primaryDomain: string };
  let orgB: { id: string };
  let editor: { userId: string; token: string };
  const humans: string[] = [];

  before(async () => {
    orgA = await createOrg(svc);
    orgB = await createOrg(svc);
    editor = await createCaller(svc, orgA.id, { org: ['ORG_USER_MANAGER'] });
    for (let i = 0; i < 5; i++) {
      const res = await svc.api('POST', `/management/v1/orgs/${orgA.id}/users/human`, {
        token: editor.token,
        body: {
          userName: `person${i}`,
          profile: { firstName: 'Ada', lastName: `Lovelace ${i}` },
          email: { email: `ada${i}@example.com`, isEmailVerified: true },
          password: 'correct horse battery staple',
        },
      });
      assert.equal(res.status, 201, res.text);
      humans.push(res.body.userId);
    }
  });

  it('lists user.human.added with displayName, email and userName, and never a password or hash', async () => {
    const events = await searchEvents(svc, { asc: true, limit: 100, event_types: ['user.human.added'], resource_owner: orgA.id });
    assert.deepEqual(
      events.map((e) => e.aggregate.id),
      humans,
    );
    for (const [i, e] of events.entries()) {
      assert.equal(e.type.localized.key, 'EventTypes.user.human.added');
      assert.equal(e.type.localized.localizedMessage, 'Person added');
      assert.equal(e.payload.userName, `person${i}`);
      assert.equal(e.payload.displayName, `Ada Lovelace ${i}`);
      assert.equal(e.payload.email, `ada${i}@example.com`);
      assert.equal(e.aggregate.resourceOwner, orgA.id);
      assert.equal(e.editor.userId, editor.userId);
      assert.match(e.creationDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.doesNotMatch(JSON.stringify(e), /correct horse|\$2[aby]\$/);
    }
  });

  it('orders by sequence, newest first by default, and pages on with the sequence cursor', async () => {
    const all = await searchEvents(svc, { asc: true, limit: 1000 });
    const sequences = all.map((e) => Number(e.sequence));
    assert.deepEqual(
      sequences,
      [...sequences].sort((a, b) => a - b),
    );
    assert.equal(new Set(sequences).size, sequences.length);

    const newest = await searchEvents(svc, { limit: 3 });
    assert.deepEqual(
      newest.map((e) => e.sequence),
      all
        .slice(-3)
        .reverse()
        .map((e) => e.sequence),
    );

    // Walk the whole log three at a time in both directions; every event is seen exactly once.
    for (const asc of [true, false]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page: SearchedEvent[] = await searchEvents(svc, { asc, limit: 3, ...(cursor ? { sequence: cursor } : {}) });
        if (page.length === 0) break;
        seen.push(...page.map((e) => e.sequence));
        cursor = page[page.length - 1].sequence;
      }
      assert.deepEqual(seen, asc ? sequences.map(String) : sequences.map(String).reverse());
    }
    // A numeric cursor works as well as a string one.
    const after2 = await searchEvents(svc, { asc: true, limit: 1, sequence: sequences[1] });
    assert.equal(after2[0].sequence, String(sequences[2]));
  });

  it('filters by aggregate type and id, resource owner, editor, and time', async () => {
    const byAggregate = await searchEvents(svc, { aggregate_id: humans[2] });
    assert.deepEqual(
      byAggregate.map((e) => e.type.type),
      ['user.human.added'],
    );

    const orgs = await searchEvents(svc, { aggregate_types: ['org'], asc: true });
    assert.ok(orgs.length >= 3);
    assert.ok(orgs.every((e) => e.aggregate.type.type === 'org'));

    const inB = await searchEvents(svc, { resource_owner: orgB.id });
    assert.deepEqual(
      inB.map((e) => e.type.type),
      ['org.added'],
    );

    const byEditor = await searchEvents(svc, { editor_user_id: editor.userId });
    assert.equal(byEditor.length, humans.length);

    const all = await searchEvents(svc, { asc: true, limit: 1000 });
    const pivot = all[Math.floor(all.length / 2)].creationDate;
    const since = await searchEvents(svc, { since: pivot, asc: true, limit: 1000 });
    const until = await searchEvents(svc, { until: pivot, asc: true, limit: 1000 });
    assert.ok(since.every((e) => e.creationDate >= pivot));
    assert.ok(until.every((e) => e.creationDate < pivot));
    assert.equal(since.length + until.length, all.length);

    const none = await searchEvents(svc, { event_types: ['no.such.event'] });
    assert.deepEqual(none, []);
  });

  it('rejects bad queries with 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ limit: 1001 }, 'limit'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ asc: 'yes' }, 'asc'],
      [{ event_types: 'user.human.added' }, 'event_types'],
      [{ sequence: -1 }, 'sequence'],
      [{ sequence: 'abc' }, 'sequence'],
      [{ since: 'yesterday' }, 'since'],
      [{ unknown: 1 }, 'unknown'],
    ];
    for (const [body, field] of cases) {
      const res = await svc.api('POST', '/admin/v1/events/_search', { token: svc.adminToken, body });
      assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
      assert.ok(
        res.body.details.some((d: { field: string }) => d.field === field),
        `${JSON.stringify(body)} → ${res.text}`,
      );
    }
  });

  it("answers the spec's records alone by default: no names, and no record carries one", async () => {
    const res = await svc.api('POST', '/admin/v1/events/_search', { token: svc.adminToken, body: { asc: true, limit: 50, resource_owner: orgA.id } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body), ['events']);
    assert.ok(res.body.events.length > 0);
    for (const event of res.body.events as SearchedEvent[]) {
      assert.equal(typeof event.type.type, 'string');
      assert.equal(typeof event.type.localized.key, 'string');
      assert.equal(typeof event.type.localized.localizedMessage, 'string');
      assert.deepEqual([typeof event.aggregate.id, typeof event.aggregate.resourceOwner], ['string', 'string']);
      assert.ok(!Number.isNaN(Date.parse(event.creationDate)), 'creationDate is ISO 8601');
      assert.deepEqual(Object.keys(event.editor), ['userId'], 'the editor by id only');
    }
    const explicit = await svc.api('POST', '/admin/v1/events/_search', { token: svc.adminToken, body: { limit: 5, withNames: false } });
    assert.deepEqual(Object.keys(explicit.body), ['events']);
    const bad = await svc.api('POST', '/admin/v1/events/_search', { token: svc.adminToken, body: { withNames: 'yes' } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.text, /withNames/);
  });

  it('with withNames: names the users its events mention beside the page (editor, user events, payload.userId), once each; a removed user is absent', async () => {
    const granted = await svc.api('PUT', `/management/v1/orgs/${orgA.id}/members/${humans[0]}`, {
      token: svc.adminToken,
      body: { roles: ['ORG_USER_MANAGER'] },
    });
    assert.equal(granted.status, 200, granted.text);
    const removed = await svc.api('DELETE', `/management/v1/orgs/${orgA.id}/users/${humans[4]}`, { token: svc.adminToken });
    assert.equal(removed.status, 204, removed.text);
    const res = await svc.api('POST', '/admin/v1/events/_search', {
      token: svc.adminToken,
      body: { asc: true, limit: 1000, resource_owner: orgA.id, withNames: true },
    });
    assert.equal(res.status, 200, res.text);
    const events: SearchedEvent[] = res.body.events;
    const users: { userId: string; loginName: string; displayName?: string }[] = res.body.users;
    assert.equal(new Set(users.map((u) => u.userId)).size, users.length, 'each user once');
    const byId = new Map(users.map((u) => [u.userId, u]));
    // The editor (a machine user of orgA), the users of user events, and the member of org.member.added.
    assert.deepEqual(byId.get(editor.userId)?.displayName, 'test caller');
    assert.match(byId.get(editor.userId)!.loginName, new RegExp(`^caller.*@${orgA.primaryDomain.replace(/\./g, '\\.')}$`));
    assert.deepEqual(byId.get(humans[1]), { userId: humans[1], loginName: `person1@${orgA.primaryDomain}`, displayName: 'Ada Lovelace 1' });
    const memberAdded = events.find((e) => e.type.type === 'org.member.added' && e.payload.userId === humans[0]);
    assert.ok(memberAdded, 'the grant is an event naming the user in its payload');
    assert.equal(byId.get(humans[0])?.loginName, `person0@${orgA.primaryDomain}`);
    assert.ok(
      events.some((e) => e.aggregate.id === humans[4]),
      'the removed user still has its events',
    );
    assert.equal(byId.has(humans[4]), false, 'a removed user has no name');
    // Every name is of an id the page mentions.
    const mentioned = new Set(events.flatMap((e) => [e.editor.userId, e.aggregate.type.type === 'user' ? e.aggregate.id : null, e.payload?.userId]));
    for (const u of users) assert.ok(mentioned.has(u.userId), `${u.userId} is mentioned`);
  });

  it('with withNames: names the organizations, projects and groups its events mention, once each; a removed one is absent', async () => {
    const api = (method: string, path: string, body?: unknown) => svc.api(method, `/management/v1/orgs/${orgA.id}${path}`, { token: svc.adminToken, body });
    const group = await api('POST', '/groups', { displayName: 'Payroll admins' });
    assert.equal(group.status, 201, group.text);
    const joined = await api('PUT', `/groups/${group.body.id}/members/${humans[2]}`);
    assert.ok(joined.status < 300, joined.text);
    const project = await api('POST', '/projects', { name: 'Payroll' });
    assert.equal(project.status, 201, project.text);
    const gone = await api('POST', '/projects', { name: 'Gone soon' });
    assert.equal((await api('DELETE', `/projects/${gone.body.id}`)).status, 204);
    const res = await svc.api('POST', '/admin/v1/events/_search', {
      token: svc.adminToken,
      body: { asc: true, limit: 1000, resource_owner: orgA.id, withNames: true },
    });
    assert.equal(res.status, 200, res.text);
    const events: SearchedEvent[] = res.body.events;
    const objects: { id: string; kind: string; name: string }[] = res.body.objects;
    assert.equal(new Set(objects.map((o) => o.id)).size, objects.length, 'each object once');
    const byId = new Map(objects.map((o) => [o.id, o]));
    const added = events.find((e) => e.type.type === 'group.member.added' && e.payload.userId === humans[2]);
    assert.ok(added, 'the membership is an event of the group');
    assert.deepEqual(byId.get(added.aggregate.id), { id: group.body.id, kind: 'group', name: 'Payroll admins' });
    assert.deepEqual(byId.get(project.body.id), { id: project.body.id, kind: 'project', name: 'Payroll' });
    assert.equal(byId.get(orgA.id)?.kind, 'org', "each event's organization is named");
    assert.ok(
      events.some((e) => e.aggregate.id === gone.body.id),
      'the removed project still has its events',
    );
    assert.equal(byId.has(gone.body.id), false, 'a removed project has no name');
    assert.equal(byId.has(orgB.id), false, 'an organization no event of the page names is not named');
  });

  it('is for IAM_OWNER only', async () => {
    assert.equal((await svc.api('POST', '/admin/v1/events/_search', { body: {} })).status, 401);
    const res = await svc.api('POST', '/admin/v1/events/_search', { token: editor.token, body: {} });
    assert.equal(res.status, 403);
  });
});
