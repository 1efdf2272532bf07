import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import canonicalizeModule from 'canonicalize';
import { createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { rsyslogReceiver } from '../support/rsyslog.js';
import type { Rsyslog } from '../support/rsyslog.js';
import { throwAwayCa } from '../support/throw-away-ca.js';
import { Webhook } from 'standardwebhooks';
import { startPostReceiver } from '../support/post-receiver.js';
import type { Post } from '../support/post-receiver.js';
import { until } from '../webhooks/receiver.js';

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string;
const BIN = new URL('../../../bin/portcullis.js', import.meta.url).pathname;

/**
 * A second verifier, written from docs/audit-and-signals.md ("The record") alone: each record's chain is the SHA-256
 * of the previous chain's 64 hex characters followed by the RFC 8785 JSON of the record without `chain`; sequences
 * run 1, 2, 3… (a repeat of a record is identical to it). Answers the records in sequence order, each once.
 */
function independentlyVerified(lines: string[]): Array<Record<string, any>> {
  const records: Array<Record<string, any>> = [];
  let previous = '0'.repeat(64);
  for (const line of lines) {
    const record = JSON.parse(line.slice(line.indexOf('{')));
    if (record.sequence <= records.length) {
      assert.deepEqual(record, records[record.sequence - 1], `a repeat of record ${record.sequence} is identical`);
      continue;
    }
    assert.equal(record.sequence, records.length + 1, 'no gap, no reordering');
    const { chain, ...rest } = record;
    const expected = createHash('sha256').update(previous).update(canonicalize(rest)).digest('hex');
    assert.equal(chain, expected, `record ${record.sequence}: chain`);
    previous = chain;
    records.push(record);
  }
  return records;
}

function verifyCli(file: string): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [BIN, 'audit', 'verify', file], { encoding: 'utf8' });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

/** Changes that make events, one of them carrying a secret in its answer (a PAT) and one a password. */
async function someChanges(svc: TestService, orgId: string, n: number): Promise<string[]> {
  const secrets: string[] = [];
  for (let i = 0; i < n; i++) {
    const password = `Pw-${unique('s')}-Aa1!`;
    secrets.push(password);
    const user = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: svc.adminToken,
      body: {
        userName: unique('u'),
        profile: { firstName: 'A', lastName: 'B' },
        email: { email: `${unique('e')}@example.com`, isEmailVerified: true },
        password,
      },
    });
    assert.equal(user.status, 201, user.text);
  }
  const machine = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, {
    token: svc.adminToken,
    body: { userName: unique('m'), name: 'm', accessTokenType: 'opaque' },
  });
  const pat = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${machine.body.userId}/pats`, { token: svc.adminToken, body: {} });
  assert.equal(pat.status, 201, pat.text);
  secrets.push(pat.body.token);
  return secrets;
}

describe('audit stream into rsyslog over TLS (docs/audit-and-signals.md)', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', AUDIT_STREAM_RETRY_BASE_MS: '50', AUDIT_STREAM_RETRY_MAX_MS: '400' });
  let dir: string;
  let rsyslog: Rsyslog;
  let streamId: string;
  let ca: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-rsyslog-'));
    const tls = throwAwayCa(dir);
    ca = readFileSync(tls.ca, 'utf8');
    rsyslog = await rsyslogReceiver(dir, tls);
    await rsyslog.start();
  });
  after(async () => {
    await rsyslog?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The events since the stream was created, its own first. */
  async function streamedEvents() {
    const [added] = await searchEvents(svc, { event_types: ['audit.stream.added'], aggregate_id: streamId });
    return searchEvents(svc, { asc: true, sequence: String(Number(added.sequence) - 1), limit: 1000 });
  }

  /** Waits until rsyslog's file holds a record of every event since the stream was created. */
  async function arrivedUpTo(what: string): Promise<Array<Record<string, any>>> {
    const count = (await streamedEvents()).length;
    let records: Array<Record<string, any>> = [];
    await until(what, () => {
      records = independentlyVerified(rsyslog.lines());
      return records.length >= count;
    });
    return records;
  }

  it('every record arrives in order, chained, with secrets redacted; audit verify passes', async () => {
    const created = await svc.api('POST', '/admin/v1/audit-streams', {
      token: svc.adminToken,
      body: { name: 'siem', type: 'syslog', url: `syslog+tls://localhost:${rsyslog.port}`, caCertificate: ca },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('cache-control'), 'no-store');
    assert.equal(created.body.secret, undefined, 'a syslog stream has no signing secret');
    streamId = created.body.id;
    const org = await createOrg(svc);
    const secrets = await someChanges(svc, org.id, 3);
    const records = await arrivedUpTo('every record in rsyslog');
    assert.equal(records[0].type, 'audit.stream.added', "the stream's own creation is its first record");
    assert.equal(records[0].sequence, 1);
    const events = await streamedEvents();
    assert.deepEqual(
      records.map((r) => r.type),
      events.map((e) => e.type.type),
      'one record per event, in the order of the log',
    );
    const human = records.find((r) => r.type === 'user.human.added')!;
    assert.deepEqual(human.organization, { id: org.id, name: org.name });
    assert.equal(human.actor.userName, 'admin-client');
    assert.equal(human.target.type, 'user');
    const lines = rsyslog.lines();
    assert.match(lines[0], / portcullis audit.stream.added \{/, 'APP-NAME portcullis, MSGID the event type');
    const file = readFileSync(rsyslog.file, 'utf8');
    for (const secret of secrets) assert.ok(!file.includes(secret), 'no secret reaches the receiver');
    const verified = verifyCli(rsyslog.file);
    assert.equal(verified.status, 0, verified.out);
    assert.match(verified.out, new RegExp(`${records.length} records, sequence 1 to ${records.length}, whole`));

    const listed = await svc.api('GET', '/admin/v1/audit-streams', { token: svc.adminToken });
    assert.equal(listed.status, 200, listed.text);
    const stream = listed.body.streams.find((s: { id: string }) => s.id === streamId);
    assert.equal(stream.state, 'active');
    assert.ok(stream.lastDeliveredSequence >= records.length);
  });

  it('the receiver down and back: records wait, retried, and nothing is lost or reordered', async () => {
    await rsyslog.stop();
    const org = await createOrg(svc);
    await someChanges(svc, org.id, 2);
    await until('the stream reports the failure', async () => {
      const res = await svc.api('GET', `/admin/v1/audit-streams/${streamId}`, { token: svc.adminToken });
      return res.body.state === 'retrying' && typeof res.body.lastError === 'string' && res.body.lag > 0;
    });
    // The outage counted in attempts, not in seconds (docs/audit-and-signals.md, "Delivery"): the receiver stays down
    // through the whole back-off (50 ms doubling to its 400 ms cap: the fourth retry waits the cap) and beyond, while
    // every record it missed is held in the database, the lag counting them.
    const held =
      (await streamedEvents()).length - (await svc.api('GET', `/admin/v1/audit-streams/${streamId}`, { token: svc.adminToken })).body.lastDeliveredSequence;
    let down: Record<string, any> = {};
    await until('the back-off run to its cap and past it', async () => {
      down = (await svc.api('GET', `/admin/v1/audit-streams/${streamId}`, { token: svc.adminToken })).body;
      return down.failedAttempts >= 6;
    });
    assert.equal(down.state, 'retrying');
    assert.equal(down.lag, held, 'every record the receiver missed is held');
    assert.ok(Date.parse(down.nextAttemptAt) > 0, 'the next attempt is announced');
    await rsyslog.start();
    await someChanges(svc, org.id, 1);
    await arrivedUpTo('every record after the outage');
    const verified = verifyCli(rsyslog.file);
    assert.equal(verified.status, 0, verified.out);
    // The receiver holds the batch before the streamer commits its progress: the state follows a moment later.
    await until('the stream reports itself active again', async () => {
      const res = await svc.api('GET', `/admin/v1/audit-streams/${streamId}`, { token: svc.adminToken });
      return res.body.state === 'active' && res.body.failedAttempts === 0 && res.body.nextAttemptAt === undefined;
    });
  });

  it('audit verify names a record edited, removed or swapped in the file', () => {
    const lines = readFileSync(rsyslog.file, 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const unique = independentlyVerified(lines);
    assert.ok(unique.length >= 6);
    const firstOf = (sequence: number) => lines.findIndex((l) => JSON.parse(l.slice(l.indexOf('{'))).sequence === sequence);
    const tampered = (name: string, edit: (copy: string[]) => void) => {
      const copy = [...lines];
      edit(copy);
      const file = join(dir, `${name}.log`);
      writeFileSync(file, `${copy.join('\n')}\n`);
      return verifyCli(file);
    };
    const i3 = firstOf(3);
    const edited = tampered('edited', (c) => (c[i3] = c[i3].replace('"type":"', '"type":"x')));
    assert.equal(edited.status, 1, edited.out);
    assert.match(edited.out, /record 3 \(line \d+\) was altered/);
    const removed = tampered('removed', (c) => c.splice(firstOf(4), 1));
    assert.equal(removed.status, 1, removed.out);
    assert.match(removed.out, /record 4 is missing/);
    const swapped = tampered('swapped', (c) => {
      const [a, b] = [firstOf(2), firstOf(5)];
      [c[a], c[b]] = [c[b], c[a]];
    });
    assert.equal(swapped.status, 1, swapped.out);
    assert.match(swapped.out, /record 2 is out of order/);
  });

  it('an https stream: JSON lines signed as Standard Webhooks, retried while refused, whole and in order', async () => {
    const posts: Post[] = [];
    let refuse = 2;
    const receiver = await startPostReceiver(
      (path) => path === '/audit',
      (post) => {
        posts.push(post);
        return refuse-- > 0 ? 503 : 200;
      },
    );
    try {
      const org = await createOrg(svc);
      const created = await svc.api('POST', `/management/v1/orgs/${org.id}/audit-streams`, {
        token: svc.adminToken,
        body: { name: 'elastic', type: 'https', url: `${receiver.origin}/audit` },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get('cache-control'), 'no-store');
      assert.match(created.body.secret, /^whsec_/, 'the signing secret, shown once');
      const listed = await svc.api('GET', `/management/v1/orgs/${org.id}/audit-streams`, { token: svc.adminToken });
      assert.ok(!listed.text.includes(created.body.secret), 'never shown again');
      const secrets = await someChanges(svc, org.id, 2);
      const other = await createOrg(svc);
      await someChanges(svc, other.id, 1);
      const expected = await searchEvents(svc, { asc: true, resource_owner: org.id, limit: 1000 });
      const sinceAdded = expected.slice(expected.findIndex((e) => e.type.type === 'audit.stream.added'));
      const taken = () => posts.filter((_, i) => i >= 2);
      await until('every record of the organization posted', () => taken().flatMap((p) => p.body.trim().split('\n')).length >= sinceAdded.length);
      const webhook = new Webhook(created.body.secret);
      // The library's verify() also parses the body as one JSON document; a batch is JSON lines, so its signature is
      // checked against the one the library computes for the same id, timestamp and body.
      for (const post of posts) {
        const [id, timestamp] = [String(post.headers['webhook-id']), Number(post.headers['webhook-timestamp'])];
        assert.equal(post.headers['webhook-signature'], webhook.sign(id, new Date(timestamp * 1000), post.body), 'signed with the stream secret');
      }
      assert.equal(posts[0].headers['webhook-id'], posts[1].headers['webhook-id'], 'a batch sent again carries its webhook-id');
      const lines = posts.flatMap((p) => p.body.trim().split('\n'));
      const records = independentlyVerified(lines);
      assert.deepEqual(
        records.map((r) => r.type),
        sinceAdded.map((e) => e.type.type),
        "only the organization's events, each once, in order",
      );
      assert.ok(records.every((r) => r.organization?.id === org.id));
      for (const secret of secrets) assert.ok(!lines.join('\n').includes(secret), 'no secret reaches the receiver');
    } finally {
      await receiver.close();
    }
  });

  it('refuses a syslog+tcp stream off loopback, a bad CA and a URL of the wrong kind, with a 400 naming the field', async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await svc.api('POST', '/admin/v1/audit-streams', { token: svc.adminToken, body: { name: 'x', type: 'syslog', ...body } });
      assert.equal(res.status, 400, res.text);
      assert.ok(
        res.body.details.some((d: { field: string }) => d.field === field),
        res.text,
      );
    };
    await bad({ url: 'syslog+tcp://192.0.2.1:514' }, 'url');
    await bad({ url: 'https://siem.example.com/' }, 'url');
    await bad({ url: `syslog+tls://localhost:${rsyslog.port}`, caCertificate: 'not a certificate' }, 'caCertificate');
    await bad({ url: `syslog+tls://localhost:${rsyslog.port}`, type: 'kafka' }, 'type');
  });
});
