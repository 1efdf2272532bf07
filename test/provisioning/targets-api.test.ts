import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countRows, createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { findSecretsAtRest } from '../support/secret-scan.js';
import { eventually } from '../faults/faults.helpers.js';
import { ScimmyTarget } from './support/scimmy-target.js';

const TOKEN = 'target-bearer-token-7d41e0';

/** docs/provisioning.md, "Targets": an organization's provisioning targets, by the management API. */
describe('provisioning API: targets', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let peer: ScimmyTarget;
  let orgId: string;
  let owner: { userId: string; token: string };
  let manager: { userId: string; token: string };
  const targets = (org = orgId) => `/management/v1/orgs/${org}/provisioning/targets`;
  const as = (token: string, method: string, path: string, body?: unknown) => svc.api(method, path, { token, body });
  const bearerTarget = (extra: Record<string, unknown> = {}) => ({
    name: unique('Peer'),
    baseUrl: peer.baseUrl,
    auth: { type: 'bearer', token: TOKEN },
    ...extra,
  });

  before(async () => {
    peer = await ScimmyTarget.start(TOKEN);
    orgId = (await createOrg(svc)).id;
    owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    manager = await createCaller(svc, orgId, { org: ['ORG_USER_MANAGER'] });
  });
  after(() => peer?.close());

  const group = async (org = orgId) => {
    const res = await svc.api('POST', `/management/v1/orgs/${org}/groups`, { token: svc.adminToken, body: { displayName: unique('g') } });
    assert.equal(res.status, 201, res.text);
    return res.body.id as string;
  };

  it('an ORG_OWNER adds a target: 201 {id}; reads never show the token, which is stored encrypted; the event has none', async () => {
    const groupId = await group();
    const created = await as(
      owner.token,
      'POST',
      targets(),
      bearerTarget({ scope: { users: 'groups', groupIds: [groupId] }, userName: 'email', onRemove: 'delete' }),
    );
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body), ['id']);

    const one = await as(owner.token, 'GET', `${targets()}/${created.body.id}`);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(
      { ...one.body, name: undefined, createdAt: undefined, changedAt: undefined },
      {
        id: created.body.id,
        name: undefined,
        baseUrl: peer.baseUrl,
        auth: { type: 'bearer' },
        scope: { users: 'groups', groupIds: [groupId] },
        pushGroups: 'none',
        userName: 'email',
        onRemove: 'delete',
        rolesFrom: null,
        requestTimeoutMs: 10000,
        enabled: true,
        createdAt: undefined,
        changedAt: undefined,
      },
    );
    const list = await as(owner.token, 'GET', targets());
    assert.equal(list.status, 200);
    assert.equal(list.body.total, list.body.targets.length);
    assert.ok(list.body.targets.some((t: { id: string }) => t.id === created.body.id));
    assert.ok(!list.text.includes(TOKEN) && !one.text.includes(TOKEN));

    const [stored] = await svc.dataSource.query('SELECT secret, settings FROM provisioning_targets WHERE id = ?', [created.body.id]);
    assert.ok(stored.secret.startsWith('v1.'));
    assert.deepEqual(await findSecretsAtRest(svc.dataSource, [TOKEN]), []);
    const [added] = await searchEvents(svc, { event_types: ['provisioning.target.added'], aggregate_id: created.body.id });
    assert.equal(added.aggregate.resourceOwner, orgId);
    assert.equal(added.editor.userId, owner.userId);
    assert.equal(added.payload.baseUrl, peer.baseUrl);
    assert.ok(!JSON.stringify(added).includes(TOKEN));
  });

  it('refuses bad input with 400 naming the problem, and stores nothing', async () => {
    const otherOrgGroup = await group((await createOrg(svc)).id);
    const before = await countRows(svc, 'provisioning_targets');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ name: undefined }, /name/],
      [{ name: '  ' }, /name must not be blank/],
      [{ baseUrl: undefined }, /baseUrl/],
      [{ baseUrl: 'not a url' }, /baseUrl must be an absolute https URL/],
      [{ baseUrl: 'ftp://93.184.215.14/scim' }, /baseUrl must be an absolute https URL/],
      [{ baseUrl: 'https://u:p@93.184.215.14/scim' }, /credentials/],
      [{ baseUrl: 'https://93.184.215.14/scim?tenant=1' }, /query or fragment/],
      // This instance's own SCIM API is never a target (docs/provisioning.md, "Targets").
      [{ baseUrl: `${svc.url}/scim/v2/${orgId}` }, /baseUrl must not point at this instance itself/],
      [{ baseUrl: `http://localhost:${new URL(svc.url).port}/scim/v2/${orgId}` }, /this instance itself/],
      [{ auth: undefined }, /auth/],
      [{ auth: { type: 'basic', token: 'x' } }, /type/],
      [{ auth: { type: 'bearer' } }, /auth.token is required/],
      [{ auth: { type: 'bearer', token: 'x', clientSecret: 's' } }, /auth.clientSecret belongs to oauth_client_credentials/],
      [{ auth: { type: 'oauth_client_credentials', clientId: 'c', clientSecret: 's' } }, /auth.tokenUrl is required/],
      [{ auth: { type: 'oauth_client_credentials', tokenUrl: peer.tokenUrl, clientSecret: 's' } }, /auth.clientId is required/],
      [{ auth: { type: 'oauth_client_credentials', tokenUrl: peer.tokenUrl, clientId: 'c' } }, /auth.clientSecret is required/],
      [
        { auth: { type: 'oauth_client_credentials', tokenUrl: 'ftp://x/token', clientId: 'c', clientSecret: 's' } },
        /auth.tokenUrl must be an absolute https URL/,
      ],
      [{ auth: { type: 'oauth_client_credentials', tokenUrl: peer.tokenUrl, clientId: 'c', clientSecret: 's', scope: 'a"b' } }, /scope tokens/],
      [{ scope: { users: 'some' } }, /users/],
      [{ scope: { users: 'groups' } }, /scope.groupIds must name at least one group/],
      [{ scope: { users: 'groups', groupIds: ['no-such-group'] } }, /scope.groupIds names groups the organization does not have: no-such-group/],
      // Another organization's group is unknown here.
      [{ scope: { users: 'groups', groupIds: [otherOrgGroup] } }, new RegExp(`does not have: ${otherOrgGroup}`)],
      [{ pushGroups: 'some' }, /pushGroups/],
      [{ userName: 'nickName' }, /userName/],
      [{ onRemove: 'archive' }, /onRemove/],
      [{ enabled: 'yes' }, /enabled/],
      [{ password: 'x' }, /password/],
    ];
    for (const [change, message] of cases) {
      const res = await as(owner.token, 'POST', targets(), bearerTarget(change));
      assert.equal(res.status, 400, `${JSON.stringify(change)} → ${res.status} ${res.text}`);
      assert.match(res.body.message + JSON.stringify(res.body.details ?? []), message, JSON.stringify(change));
    }
    assert.equal(await countRows(svc, 'provisioning_targets'), before);
  });

  it('PATCH changes what is sent and keeps the stored secret unless a new one comes; the event says only that it changed; DELETE removes the target', async () => {
    const { id } = (await as(owner.token, 'POST', targets(), bearerTarget())).body;
    const renamed = await as(owner.token, 'PATCH', `${targets()}/${id}`, { name: 'Renamed', onRemove: 'delete', enabled: false });
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.body.name, 'Renamed');
    assert.equal(renamed.body.onRemove, 'delete');
    assert.equal(renamed.body.enabled, false);
    assert.equal(renamed.body.baseUrl, peer.baseUrl);
    const [secretBefore] = await svc.dataSource.query('SELECT secret FROM provisioning_targets WHERE id = ?', [id]);

    const rotated = await as(owner.token, 'PATCH', `${targets()}/${id}`, { auth: { type: 'bearer', token: 'a-new-token-33f0' } });
    assert.equal(rotated.status, 200, rotated.text);
    const [secretAfter] = await svc.dataSource.query('SELECT secret FROM provisioning_targets WHERE id = ?', [id]);
    assert.notEqual(secretAfter.secret, secretBefore.secret);
    const changes = await searchEvents(svc, { event_types: ['provisioning.target.changed'], aggregate_id: id });
    assert.equal(changes.length, 2);
    assert.deepEqual(changes.map((e) => e.payload.secretChanged ?? false).sort(), [false, true]);
    assert.ok(!JSON.stringify(changes).includes('a-new-token-33f0'));

    const refused = await as(owner.token, 'PATCH', `${targets()}/${id}`, {
      auth: { type: 'oauth_client_credentials', tokenUrl: peer.tokenUrl, clientId: 'c' },
    });
    assert.equal(refused.status, 400, 'a new auth type needs its secret');
    assert.equal((await as(owner.token, 'PATCH', `${targets()}/${id}`, { baseUrl: `${svc.url}/scim/v2/${orgId}` })).status, 400);
    assert.equal((await as(owner.token, 'PATCH', `${targets()}/${id}`, { scope: { users: 'groups', groupIds: ['nope'] } })).status, 400);
    assert.equal((await as(owner.token, 'GET', `${targets()}/${id}`)).body.name, 'Renamed', 'a refused change changes nothing');

    assert.equal((await as(owner.token, 'DELETE', `${targets()}/${id}`)).status, 204);
    assert.equal((await as(owner.token, 'GET', `${targets()}/${id}`)).status, 404);
    assert.equal((await as(owner.token, 'DELETE', `${targets()}/${id}`)).status, 404);
    assert.equal((await as(owner.token, 'PATCH', `${targets()}/${id}`, { name: 'x' })).status, 404);
    assert.equal((await searchEvents(svc, { event_types: ['provisioning.target.removed'], aggregate_id: id })).length, 1);
  });

  it('requestTimeoutMs: 10000 unless set, 1000 to 120000, shown and evented like the other settings; the pusher waits that long for an answer', async () => {
    const { id } = (await as(owner.token, 'POST', targets(), bearerTarget({ enabled: false }))).body;
    const path = `${targets()}/${id}`;
    assert.equal((await as(owner.token, 'GET', path)).body.requestTimeoutMs, 10000);
    const events = async (type: string) => searchEvents(svc, { event_types: [`provisioning.target.${type}`], aggregate_id: id });
    assert.deepEqual(
      (await events('added')).map((e) => e.payload.requestTimeoutMs),
      [10000],
    );

    const changed = await as(owner.token, 'PATCH', path, { requestTimeoutMs: 120000 });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.requestTimeoutMs, 120000);
    assert.equal((await as(owner.token, 'GET', path)).body.requestTimeoutMs, 120000);
    assert.deepEqual(
      (await events('changed')).map((e) => e.payload.requestTimeoutMs),
      [120000],
    );

    const before = await countRows(svc, 'provisioning_targets');
    for (const bad of [999, 120001, 0, -1, 1500.5, '5000', null, true]) {
      const created = await as(owner.token, 'POST', targets(), bearerTarget({ requestTimeoutMs: bad }));
      assert.equal(created.status, 400, `POST ${JSON.stringify(bad)} → ${created.status} ${created.text}`);
      assert.match(created.text, /requestTimeoutMs/);
      const patched = await as(owner.token, 'PATCH', path, { requestTimeoutMs: bad, name: 'not this' });
      assert.equal(patched.status, 400, `PATCH ${JSON.stringify(bad)} → ${patched.status} ${patched.text}`);
      assert.match(patched.text, /requestTimeoutMs/);
    }
    assert.equal(await countRows(svc, 'provisioning_targets'), before, 'no target stored');
    const after = (await as(owner.token, 'GET', path)).body;
    assert.deepEqual([after.requestTimeoutMs, after.name === 'not this'], [120000, false], 'a refused change changes nothing');
    assert.equal((await events('changed')).length, 1, 'and writes no event');

    // The pusher gives up on an answer slower than the target's timeout, and takes it within a longer one.
    const org = (await createOrg(svc)).id;
    const userName = unique('slow');
    const user = await svc.api('POST', `/management/v1/orgs/${org}/users/human`, {
      token: svc.adminToken,
      body: { userName, profile: { firstName: 'S', lastName: 'Low' }, email: { email: `${userName}@example.com` } },
    });
    assert.equal(user.status, 201, user.text);
    peer.fault = { delayMs: 2500 };
    try {
      const slow = await svc.api('POST', targets(org), { token: svc.adminToken, body: bearerTarget({ requestTimeoutMs: 1000 }) });
      assert.equal(slow.status, 201, slow.text);
      const objectOf = async () =>
        (
          (await svc.api('GET', `${targets(org)}/${slow.body.id}/objects`, { token: svc.adminToken })).body.objects as {
            localId: string;
            status: string;
            lastError?: string;
          }[]
        ).find((o) => o.localId === user.body.userId);
      const timedOut = await eventually('the push timed out', async () => ((await objectOf())?.lastError ? objectOf() : undefined), 30_000);
      assert.match(timedOut!.lastError!, /did not answer within 1 s/);
      assert.equal(peer.users.filter((u) => u.externalId === user.body.userId).length, 0);
      assert.equal((await svc.api('PATCH', `${targets(org)}/${slow.body.id}`, { token: svc.adminToken, body: { requestTimeoutMs: 6000 } })).status, 200);
      await eventually('pushed within the longer timeout', async () => ((await objectOf())?.status === 'provisioned' ? true : undefined), 60_000);
      assert.equal(peer.users.filter((u) => u.externalId === user.body.userId).length, 1);
    } finally {
      peer.fault = undefined;
    }
  });

  it("test: authenticates with the bearer token or OAuth client credentials and reads ServiceProviderConfig; a refusal or an unreachable target is the answer's error", async () => {
    const bearer = (await as(owner.token, 'POST', targets(), bearerTarget())).body.id;
    const tested = await as(owner.token, 'POST', `${targets()}/${bearer}/test`, {});
    assert.equal(tested.status, 200, tested.text);
    const config = await (await fetch(`${peer.baseUrl}/ServiceProviderConfig`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
    const features = { patch: config.patch.supported, filter: config.filter.supported, bulk: config.bulk.supported };
    assert.equal(features.patch, true);
    assert.deepEqual(tested.body, { ok: true, ...features });
    assert.ok(peer.requests.some((r) => r.path === '/scim/v2/ServiceProviderConfig' && r.authorization === `Bearer ${TOKEN}`));

    const oauth = (
      await as(
        owner.token,
        'POST',
        targets(),
        bearerTarget({
          auth: { type: 'oauth_client_credentials', tokenUrl: peer.tokenUrl, clientId: peer.client.id, clientSecret: peer.client.secret, scope: 'scim.write' },
        }),
      )
    ).body.id;
    assert.deepEqual((await as(owner.token, 'POST', `${targets()}/${oauth}/test`, {})).body, { ok: true, ...features });
    const read = await as(owner.token, 'GET', `${targets()}/${oauth}`);
    assert.deepEqual(read.body.auth, { type: 'oauth_client_credentials', tokenUrl: peer.tokenUrl, clientId: peer.client.id, scope: 'scim.write' });
    assert.ok(!read.text.includes(peer.client.secret));

    const wrongToken = (await as(owner.token, 'POST', targets(), bearerTarget({ auth: { type: 'bearer', token: 'wrong' } }))).body.id;
    const refused = await as(owner.token, 'POST', `${targets()}/${wrongToken}/test`, {});
    assert.equal(refused.status, 200);
    assert.equal(refused.body.ok, false);
    assert.match(refused.body.error, /refused the credentials \(401\)/);

    const wrongSecret = (
      await as(
        owner.token,
        'POST',
        targets(),
        bearerTarget({ auth: { type: 'oauth_client_credentials', tokenUrl: peer.tokenUrl, clientId: peer.client.id, clientSecret: 'wrong' } }),
      )
    ).body.id;
    assert.match((await as(owner.token, 'POST', `${targets()}/${wrongSecret}/test`, {})).body.error, /token endpoint refused the client credentials \(401\)/);

    peer.fault = { status: 500, count: 1 };
    assert.match((await as(owner.token, 'POST', `${targets()}/${bearer}/test`, {})).body.error, /answered 500/);
    peer.fault = { status: 302, count: 1 };
    assert.match((await as(owner.token, 'POST', `${targets()}/${bearer}/test`, {})).body.error, /answered 302/, 'redirects are not followed');

    const gone = (await as(owner.token, 'POST', targets(), bearerTarget({ baseUrl: 'http://127.0.0.1:9/scim/v2' }))).body.id;
    const unreachable = await as(owner.token, 'POST', `${targets()}/${gone}/test`, {});
    assert.equal(unreachable.status, 200);
    assert.equal(unreachable.body.ok, false);
    assert.ok(unreachable.body.error);
  });

  it('status and objects: a disabled target stays at the start of the log and says so; enabled, its pusher takes in the log (lag 0); objects filter by status', async () => {
    const { id } = (await as(owner.token, 'POST', targets(), bearerTarget({ enabled: false }))).body;
    const status = await as(owner.token, 'GET', `${targets()}/${id}/status`);
    assert.equal(status.status, 200, status.text);
    assert.equal(status.body.state, 'disabled');
    const [{ n }] = await svc.dataSource.query('SELECT COUNT(*) AS n FROM events WHERE resource_owner = ?', [orgId]);
    assert.equal(status.body.lag, Number(n), "a new target starts at the beginning of the organization's log (its first sync)");
    assert.deepEqual(status.body.objects, { provisioned: 0, pending: 0, failing: 0, conflict: 0 });
    assert.equal(status.body.lastSuccessAt, null);
    assert.equal(status.body.lastError, undefined);

    assert.equal((await as(owner.token, 'PATCH', `${targets()}/${id}`, { enabled: true })).status, 200);
    // The cursor reaches the log's end before the marks it set are settled (the service users' marks go without a request).
    const caughtUp = await eventually('the pusher takes in the log', async () => {
      const body = (await as(owner.token, 'GET', `${targets()}/${id}/status`)).body;
      return body.lag === 0 && body.objects.pending === 0 ? body : undefined;
    });
    assert.equal(caughtUp.state, 'active');
    const [{ position }] = await svc.dataSource.query('SELECT MAX(position) AS position FROM events');
    assert.ok(Number(caughtUp.sequence) > Number(status.body.sequence) && Number(caughtUp.sequence) <= Number(position));

    for (const query of ['', '?status=failing', '?status=provisioned&limit=10&offset=0']) {
      const objects = await as(owner.token, 'GET', `${targets()}/${id}/objects${query}`);
      assert.equal(objects.status, 200, objects.text);
      assert.deepEqual(objects.body, { objects: [], total: 0 }, 'the organization has no people (its callers are service users: nothing to push)');
    }
    assert.equal((await as(owner.token, 'GET', `${targets()}/${id}/objects?status=broken`)).status, 400);
    assert.equal((await as(owner.token, 'GET', `${targets()}/${id}/objects?limit=0`)).status, 400);
  });

  it('only an ORG_OWNER of that organization manages its targets: 403 below it, 404 outside it or for an unknown organization', async () => {
    const { id } = (await as(owner.token, 'POST', targets(), bearerTarget())).body;
    for (const [method, path, body] of [
      ['POST', targets(), bearerTarget()],
      ['GET', targets(), undefined],
      ['GET', `${targets()}/${id}`, undefined],
      ['PATCH', `${targets()}/${id}`, { name: 'x' }],
      ['DELETE', `${targets()}/${id}`, undefined],
      ['POST', `${targets()}/${id}/test`, {}],
      ['GET', `${targets()}/${id}/status`, undefined],
      ['GET', `${targets()}/${id}/objects`, undefined],
    ] as const) {
      assert.equal((await as(manager.token, method, path, body)).status, 403, `${method} ${path}`);
      assert.equal((await svc.api(method, path, { body })).status, 401, `${method} ${path} without a token`);
    }
    const otherOrg = (await createOrg(svc)).id;
    assert.equal((await as(owner.token, 'GET', targets(otherOrg))).status, 404);
    assert.equal((await as(svc.adminToken, 'GET', targets('no-such-org'))).status, 404);
    assert.equal((await as(svc.adminToken, 'GET', `${targets(otherOrg)}/${id}`)).status, 404, 'a target is found only under its own organization');
  });

  it('removing the organization removes its targets, each with its event', async () => {
    const org = (await createOrg(svc)).id;
    const { id } = (await as(svc.adminToken, 'POST', targets(org), bearerTarget())).body;
    const removed = await svc.api('DELETE', `/admin/v1/orgs/${org}`, { token: svc.adminToken });
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(await svc.dataSource.query('SELECT id FROM provisioning_targets WHERE id = ?', [id]), []);
    assert.equal((await searchEvents(svc, { event_types: ['provisioning.target.removed'], aggregate_id: id })).length, 1);
  });
});
