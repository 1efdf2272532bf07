import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { countRows, createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { firstArrivals, Receiver, until } from './receiver.js';

const RETRY_BASE_MS = 200;
const RETRY_WINDOW_MS = 4000;

async function subscribe(svc: TestService, path: string, token: string, body: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await svc.api('POST', path, { token, body });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  return res.body;
}

/** Some events: an organization with a few machine users. */
async function someEvents(svc: TestService, users = 3): Promise<string> {
  const org = await createOrg(svc);
  for (let i = 0; i < users; i++) {
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/users/machine`, {
      token: svc.adminToken,
      body: { userName: unique('m'), name: 'm', accessTokenType: 'opaque' },
    });
    assert.equal(res.status, 201, res.text);
  }
  return org.id;
}

describe('webhooks: delivery (docs/webhooks.md)', () => {
  const svc = useService({
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
    WEBHOOK_RETRY_WINDOW_MS: String(RETRY_WINDOW_MS),
  });
  const receivers: Receiver[] = [];
  const receiver = async () => {
    const r = await Receiver.start();
    receivers.push(r);
    return r;
  };
  after(() => Promise.all(receivers.map((r) => r.close())));

  it('delivers every event after the subscription, signed, in sequence order, exactly as event search returns it', async () => {
    const rx = await receiver();
    const { id, secret } = await subscribe(svc, '/admin/v1/webhooks', svc.adminToken, { url: rx.url });
    assert.match(secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    const [added] = await searchEvents(svc, { event_types: ['webhook.added'], aggregate_id: id });
    const orgId = await someEvents(svc, 5);
    const expected = await searchEvents(svc, { asc: true, sequence: String(Number(added.sequence) - 1), limit: 1000 });
    const last = expected.at(-1)!;
    await until('every event delivered', () => rx.accepted().some((r) => r.event.sequence === last.sequence));
    rx.verified(secret);
    const got = rx.accepted().filter((r) => Number(r.event.sequence) <= Number(last.sequence));
    assert.deepEqual(
      got.map((r) => r.event),
      expected,
      'the bodies are the event search records, in order, none missing',
    );
    assert.equal(new Set(got.map((r) => r.id)).size, got.length, 'webhook-id names each event once');
    assert.ok(got.some((r) => r.event.aggregate.resourceOwner === orgId));
    for (const r of got) assert.ok(Math.abs(Number(r.timestamp) - r.at / 1000) < 5, 'webhook-timestamp is now, in seconds');

    // The log is written after the batch's answers, so it may trail the receiver by a moment.
    let ours: Array<{ sequence: string; status: string; attempts: number; lastStatus: number; eventId: string }> = [];
    await until('the log records every delivery', async () => {
      const log = await svc.api('GET', `/admin/v1/webhooks/${id}/deliveries`, { token: svc.adminToken });
      assert.equal(log.status, 200, log.text);
      ours = log.body.deliveries.filter((d: { sequence: string }) => Number(d.sequence) <= Number(last.sequence));
      return ours.length === expected.length;
    });
    assert.deepEqual(
      ours.map((d) => [d.sequence, d.status, d.attempts, d.lastStatus]),
      [...expected].reverse().map((e) => [e.sequence, 'delivered', 1, 200]),
      'the log lists every delivery, newest first',
    );
    assert.equal(ours[0].eventId, got.at(-1)!.id);
  });

  it('a receiver answering 500 for a while: retries with growing gaps and the same webhook-id, then everything in order', async () => {
    const rx = await receiver();
    let failUntil = Number.POSITIVE_INFINITY;
    rx.answer = () => (Date.now() < failUntil ? 500 : 204);
    const { id, secret } = await subscribe(svc, '/admin/v1/webhooks', svc.adminToken, { url: rx.url });
    await someEvents(svc, 3);
    await until('four attempts of the first event', () => rx.requests.length >= 4);
    failUntil = Date.now();
    const expected = await searchEvents(svc, { asc: true, sequence: String(Number(rx.requests[0].event.sequence) - 1), limit: 1000 });
    const last = expected.at(-1)!;
    await until('every event delivered after the failures', () => rx.accepted().some((r) => r.event.sequence === last.sequence));
    rx.verified(secret);

    const first = rx.requests.filter((r) => r.id === rx.requests[0].id);
    assert.ok(first.length >= 4, `${first.length} attempts of the first event`);
    assert.ok(first.every((r) => r.event.sequence === first[0].event.sequence && r.body === first[0].body));
    const gaps = first.slice(1).map((r, i) => r.at - first[i].at);
    // The n-th retry waits base · 2^(n-1) after the failed answer (webhook-retry.ts): lower bounds, which a
    // loaded machine can only exceed; a constant or linear backoff fails the third.
    for (let i = 0; i < 3; i++)
      assert.ok(gaps[i] >= RETRY_BASE_MS * 2 ** i * 0.95, `retry ${i + 1} waits at least ${RETRY_BASE_MS * 2 ** i} ms: ${gaps.join(', ')} ms`);
    // No later event was sent while the first one was being retried: order holds.
    const order = rx.requests.map((r) => Number(r.event.sequence));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    assert.deepEqual(
      firstArrivals(rx.accepted()).filter((s) => s <= Number(last.sequence)),
      expected.map((e) => Number(e.sequence)),
    );

    // The log is written after the batch's answers, so it may trail the receiver by a moment.
    let head: { status: string; attempts: number; eventId: string } | undefined;
    await until('the log records the delivery', async () => {
      const log = await svc.api('GET', `/admin/v1/webhooks/${id}/deliveries?limit=1000`, { token: svc.adminToken });
      head = log.body.deliveries.find((d: { sequence: string }) => d.sequence === first[0].event.sequence);
      return head?.status === 'delivered';
    });
    assert.ok(head);
    assert.equal(head.attempts, first.length);
    assert.equal(head.eventId, first[0].id);
  });

  it('an event the receiver never takes is retried for the window, then marked failing; later events still arrive', async () => {
    const rx = await receiver();
    rx.answer = (r) => (r.event.type.type === 'webhook.added' ? 503 : 200);
    const { id } = await subscribe(svc, '/admin/v1/webhooks', svc.adminToken, { url: rx.url });
    const pending = await until('the first attempt failed', async () => {
      const log = await svc.api('GET', `/admin/v1/webhooks/${id}/deliveries`, { token: svc.adminToken });
      return log.body.deliveries[0]?.status === 'pending';
    }).then(() => svc.api('GET', `/admin/v1/webhooks/${id}/deliveries`, { token: svc.adminToken }));
    assert.equal(pending.body.deliveries[0].lastStatus, 503);
    assert.equal(pending.body.deliveries[0].lastError, 'HTTP 503');
    assert.ok(pending.body.deliveries[0].nextAttempt);
    const orgId = await someEvents(svc, 1);
    await until('the later events arrive', () => rx.accepted().some((r) => r.event.aggregate.resourceOwner === orgId), RETRY_WINDOW_MS + 10_000);
    const log = await svc.api('GET', `/admin/v1/webhooks/${id}/deliveries?limit=1000`, { token: svc.adminToken });
    const failing = log.body.deliveries.at(-1);
    assert.equal(failing.status, 'failing');
    assert.ok(failing.attempts >= 3, `${failing.attempts} attempts`);
    const tries = rx.requests.filter((r) => r.event.type.type === 'webhook.added');
    assert.ok(tries.at(-1)!.at - tries[0].at <= RETRY_WINDOW_MS + 500, 'no attempt after the window');
  });

  it('event types filter what a subscription receives', async () => {
    const rx = await receiver();
    await subscribe(svc, '/admin/v1/webhooks', svc.adminToken, { url: rx.url, eventTypes: ['org.added'] });
    const orgs = [await someEvents(svc, 2), await someEvents(svc, 2)];
    await until('both organizations announced', () => orgs.every((o) => rx.accepted().some((r) => r.event.aggregate.id === o)));
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(rx.requests.every((r) => r.event.type.type === 'org.added'));
  });

  it("an organization's subscription never sees another organization's events; an instance subscription with orgId sees only that organization's", async () => {
    const orgA = await createOrg(svc);
    const orgB = await createOrg(svc);
    const owner = await createCaller(svc, orgA.id, { org: ['ORG_OWNER'] });
    const rxA = await receiver();
    const rxB = await receiver();
    const { id } = await subscribe(svc, `/management/v1/orgs/${orgA.id}/webhooks`, owner.token, { url: rxA.url });
    await subscribe(svc, '/admin/v1/webhooks', svc.adminToken, { url: rxB.url, orgId: orgB.id });
    const list = await svc.api('GET', `/management/v1/orgs/${orgA.id}/webhooks`, { token: owner.token });
    assert.deepEqual(list.body, { webhooks: [{ id, url: rxA.url, eventTypes: null, orgId: orgA.id }], total: 1 });
    const marker = { a: unique('a'), b: unique('b') };
    for (const [org, name] of [
      [orgA.id, marker.a],
      [orgB.id, marker.b],
      [orgA.id, `${marker.a}-2`],
    ]) {
      const res = await svc.api('POST', `/management/v1/orgs/${org}/users/machine`, {
        token: svc.adminToken,
        body: { userName: name, name, accessTokenType: 'opaque' },
      });
      assert.equal(res.status, 201, res.text);
    }
    await someEvents(svc, 1);
    await until(
      'both receivers got their last user',
      () => rxA.accepted().some((r) => r.event.payload.userName === `${marker.a}-2`) && rxB.accepted().some((r) => r.event.payload.userName === marker.b),
    );
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual([...new Set(rxA.requests.map((r) => r.event.aggregate.resourceOwner))], [orgA.id]);
    assert.deepEqual([...new Set(rxB.requests.map((r) => r.event.aggregate.resourceOwner))], [orgB.id]);
    // The instance's list does not show organizations' subscriptions, nor the organization's the instance's.
    const instanceList = await svc.api('GET', '/admin/v1/webhooks', { token: svc.adminToken });
    assert.ok(!instanceList.body.webhooks.some((w: { id: string }) => w.id === id));
  });

  it('removal: 204, then gone from the list and its log, with an event; the secret is stored encrypted', async () => {
    const rx = await receiver();
    const { id, secret } = await subscribe(svc, '/admin/v1/webhooks', svc.adminToken, { url: rx.url, eventTypes: ['user.machine.added'] });
    const [row] = await svc.dataSource.query('SELECT secret FROM webhook_subscriptions WHERE id = ?', [id]);
    assert.ok(!row.secret.includes(secret.slice(6)) && row.secret.startsWith('v1.'), 'encrypted at rest');
    const listed = await svc.api('GET', '/admin/v1/webhooks', { token: svc.adminToken });
    assert.deepEqual(
      listed.body.webhooks.find((w: { id: string }) => w.id === id),
      { id, url: rx.url, eventTypes: ['user.machine.added'], orgId: null },
    );
    assert.ok(!listed.text.includes('whsec_'), 'the secret is shown only once');
    assert.equal((await svc.api('DELETE', `/admin/v1/webhooks/${id}`, { token: svc.adminToken })).status, 204);
    assert.equal((await svc.api('DELETE', `/admin/v1/webhooks/${id}`, { token: svc.adminToken })).status, 404);
    assert.equal((await svc.api('GET', `/admin/v1/webhooks/${id}/deliveries`, { token: svc.adminToken })).status, 404);
    const listedAfter = await svc.api('GET', '/admin/v1/webhooks', { token: svc.adminToken });
    assert.ok(!listedAfter.body.webhooks.some((w: { id: string }) => w.id === id));
    const events = await searchEvents(svc, { aggregate_id: id, asc: true });
    assert.deepEqual(
      events.map((e) => e.type.type),
      ['webhook.added', 'webhook.removed'],
    );
    assert.deepEqual(events[0].payload, { url: rx.url, eventTypes: ['user.machine.added'], orgId: null });
    await someEvents(svc, 1);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(rx.requests.length, 0, 'nothing is sent after removal');
  });

  it('a subscription whose worker is live sends nothing after its deletion returns, while another subscription goes on', async () => {
    // A deleted webhook used to receive one more delivery (org.added) after DELETE answered 204.
    const [gone, control] = [await receiver(), await receiver()];
    const doomed = await subscribe(svc, '/admin/v1/webhooks', svc.adminToken, { url: gone.url, eventTypes: ['org.added'] });
    await subscribe(svc, '/admin/v1/webhooks', svc.adminToken, { url: control.url, eventTypes: ['org.added'] });
    const first = await createOrg(svc);
    await until('the doomed subscription delivered once', () => gone.accepted().some((r) => r.event.aggregate.id === first.id));
    assert.equal((await svc.api('DELETE', `/admin/v1/webhooks/${doomed.id}`, { token: svc.adminToken })).status, 204);
    const sentBefore = gone.requests.length;
    const second = await createOrg(svc);
    const third = await createOrg(svc);
    // Both workers wake on the same new events; the live one having sent two more is the doomed one's chance to have sent.
    await until('the other subscription got the next organizations', () => control.accepted().some((r) => r.event.aggregate.id === third.id));
    assert.equal(gone.requests.length, sentBefore, 'nothing started after the deletion');
    assert.ok(!gone.requests.some((r) => r.event.aggregate.id === second.id));
  });

  it('bad input gets 400 or 404 and creates nothing', async () => {
    const orgA = await createOrg(svc);
    const orgB = await createOrg(svc);
    const owner = await createCaller(svc, orgA.id, { org: ['ORG_OWNER'] });
    const before = await countRows(svc, 'webhook_subscriptions');
    const cases: [string, string, unknown, number][] = [
      ['/admin/v1/webhooks', svc.adminToken, { url: 'not a url' }, 400],
      ['/admin/v1/webhooks', svc.adminToken, { url: 'ftp://example.com/x' }, 400],
      ['/admin/v1/webhooks', svc.adminToken, { url: 'https://user:pw@example.com/x' }, 400],
      ['/admin/v1/webhooks', svc.adminToken, {}, 400],
      ['/admin/v1/webhooks', svc.adminToken, { url: 'http://127.0.0.1:9/x', eventTypes: ['no.such.event'] }, 400],
      ['/admin/v1/webhooks', svc.adminToken, { url: 'http://127.0.0.1:9/x', eventTypes: [] }, 400],
      ['/admin/v1/webhooks', svc.adminToken, { url: 'http://127.0.0.1:9/x', secret: 'whsec_mine' }, 400],
      ['/admin/v1/webhooks', svc.adminToken, { url: 'http://127.0.0.1:9/x', orgId: 'no-such-org' }, 404],
      [`/management/v1/orgs/${orgA.id}/webhooks`, owner.token, { url: 'http://127.0.0.1:9/x', orgId: orgB.id }, 400],
      [`/management/v1/orgs/${orgB.id}/webhooks`, owner.token, { url: 'http://127.0.0.1:9/x' }, 404],
      [`/management/v1/orgs/${orgA.id}/webhooks`, owner.token, { url: 'http://127.0.0.1:9/x', extra: 1 }, 400],
    ];
    for (const [path, token, body, status] of cases) {
      const res = await svc.api('POST', path, { token, body });
      assert.equal(res.status, status, `${JSON.stringify(body)} → ${res.status} ${res.text}`);
    }
    assert.equal(await countRows(svc, 'webhook_subscriptions'), before);
    const bad = await svc.api('GET', '/admin/v1/webhooks/x/deliveries?limit=5000', { token: svc.adminToken });
    assert.equal(bad.status, 400);
  });
});

describe('webhooks: targets on private networks (WEBHOOK_ALLOW_PRIVATE_NETWORKS unset)', () => {
  const svc = useService();

  it('refuses loopback, private, link-local and mapped addresses with 400, and creates nothing', async () => {
    const refused = [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://10.1.2.3/hook',
      'http://172.16.0.1/hook',
      'http://192.168.1.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00::1]/hook',
      'http://[fe80::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://100.64.0.1/hook',
      'http://0.0.0.0/hook',
      // Targets on private networks (docs/webhooks.md): IPv6 forms of loopback and private IPv4, and special-purpose ranges
      'http://[::127.0.0.1]/hook',
      'http://[::7f00:1]/hook',
      'http://[::ffff:0:7f00:1]/hook',
      'http://[64:ff9b::7f00:1]/hook',
      'http://[64:ff9b:1::a00:1]/hook',
      'http://[2002:a00:1::1]/hook',
      'http://198.51.100.1/hook',
      'http://203.0.113.1/hook',
      'http://192.0.2.1/hook',
      'http://[2001:db8::1]/hook',
      'http://[100::1]/hook',
      'http://[fc00::1]/hook',
      'http://[ff02::1]/hook',
      'http://224.0.0.1/hook',
      'http://255.255.255.255/hook',
    ];
    for (const url of refused) {
      const res = await svc.api('POST', '/admin/v1/webhooks', { token: svc.adminToken, body: { url } });
      assert.equal(res.status, 400, `${url} → ${res.status} ${res.text}`);
    }
    assert.equal(await countRows(svc, 'webhook_subscriptions'), 0);
  });

  it('accepts a public address', async () => {
    const res = await svc.api('POST', '/admin/v1/webhooks', { token: svc.adminToken, body: { url: 'https://93.184.215.14/hook' } });
    assert.equal(res.status, 201, res.text);
  });
});
