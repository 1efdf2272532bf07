import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verifyChain } from '../../src/audit/record/chain-verifier.js';
import { createOrg, unique } from '../support/fixtures.js';
import { eventually, processSetup, remoteService } from '../faults/faults.helpers.js';
import type { ProcessSetup } from '../faults/faults.helpers.js';
import { rsyslogReceiver } from '../support/rsyslog.js';
import type { Rsyslog } from '../support/rsyslog.js';
import { throwAwayCa } from '../support/throw-away-ca.js';

/**
 * docs/audit-and-signals.md, "Delivery": what a stream owes is kept in the database, not in memory. The receiver is
 * down while records queue up; the service is killed with `kill -9`; a new process takes the stream over when the
 * dead one's lease runs out and delivers everything, in order, the chain unbroken.
 */
describe('audit stream: kill -9 of the service', () => {
  let setup: ProcessSetup;
  let dir: string;
  let rsyslog: Rsyslog;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-rsyslog-'));
    rsyslog = await rsyslogReceiver(dir, throwAwayCa(dir));
    await rsyslog.start();
    setup = await processSetup({
      OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
      AUDIT_STREAM_RETRY_BASE_MS: '50',
      AUDIT_STREAM_RETRY_MAX_MS: '300',
      AUDIT_STREAM_LEASE_MS: '12000',
    });
  });
  after(async () => {
    await setup?.cleanup();
    await rsyslog?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records owed while the receiver is down survive kill -9 and arrive after the restart', async () => {
    const first = await setup.spawn();
    const svc = remoteService(first.url, setup.adminToken());
    const ca = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const created = await svc.api('POST', '/admin/v1/audit-streams', {
      token: svc.adminToken,
      body: { name: 'siem', type: 'syslog', url: `syslog+tls://localhost:${rsyslog.port}`, caCertificate: ca },
    });
    assert.equal(created.status, 201, created.text);
    const org = await createOrg(svc);
    await eventually('the first records delivered', async () => (rsyslog.lines().length >= 2 ? true : undefined), 30_000);
    await rsyslog.stop();
    const machine = async () => {
      const res = await svc.api('POST', `/management/v1/orgs/${org.id}/users/machine`, {
        token: svc.adminToken,
        body: { userName: unique('m'), name: 'm', accessTokenType: 'opaque' },
      });
      assert.equal(res.status, 201, res.text);
    };
    for (let i = 0; i < 10; i++) await machine();
    await eventually(
      'the stream retrying',
      async () => {
        const res = await svc.api('GET', `/admin/v1/audit-streams/${created.body.id}`, { token: svc.adminToken });
        return res.body.state === 'retrying' && res.body.lag >= 10 ? true : undefined;
      },
      30_000,
    );
    const owed = (await svc.api('GET', `/admin/v1/audit-streams/${created.body.id}`, { token: svc.adminToken })).body;
    await first.stop('SIGKILL');
    await rsyslog.start();
    const second = await setup.spawn();
    const again = remoteService(second.url, setup.adminToken());
    const expected = owed.lastDeliveredSequence + owed.lag;
    const verdict = await eventually(
      'every record delivered by the new process',
      async () => {
        const v = verifyChain(rsyslog.lines().map((text, i) => ({ line: i + 1, text })));
        return v.ok && v.last >= expected ? v : undefined;
      },
      60_000,
    );
    assert.ok(verdict.ok);
    // The stream's position is written after the receiver took the batch, so a read can fall between the two.
    const settled = await eventually(
      'the stream active again, counting what the receiver holds',
      async () => {
        const res = await again.api('GET', `/admin/v1/audit-streams/${created.body.id}`, { token: again.adminToken });
        const held = verifyChain(rsyslog.lines().map((text, i) => ({ line: i + 1, text })));
        return held.ok && res.body.state === 'active' && res.body.lastDeliveredSequence === held.last ? { stream: res.body, last: held.last } : undefined;
      },
      30_000,
    );
    assert.equal(settled.stream.lastDeliveredSequence, settled.last, 'the receiver holds every record the stream counts as delivered');
  });
});
