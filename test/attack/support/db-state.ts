import type { TestService } from '../../support/service.js';
import { listTables } from '../../support/secret-scan.js';

/**
 * What the webhook dispatcher, the provisioning pusher and the audit streamer change in the background, whatever the requests do: its leases and
 * heartbeat, its progress through the event log and its delivery log (src/webhooks); likewise a target's.
 */
const BACKGROUND: Record<string, string[] | 'all'> = {
  webhook_subscriptions: ['lease_owner', 'leased_until', 'cursor_position', 'next_attempt_at'],
  webhook_deliveries: 'all',
  webhook_dispatchers: 'all',
  // The provisioning pusher (src/provisioning): its progress through the log and its pushes.
  provisioning_targets: ['cursor_position', 'next_attempt_at', 'state', 'last_success_at', 'last_error'],
  provisioning_objects: 'all',
  // An audit stream's streamer (src/audit): its progress and its retries.
  audit_streams: ['cursor_position', 'last_sequence', 'last_chain', 'failures', 'failing_since', 'next_attempt_at', 'last_error', 'delivered_at'],
  // A Shared Signals stream's transmitter (src/signals): its progress, its retries and the SETs it owes.
  ssf_streams: ['cursor_position', 'failures', 'next_attempt_at', 'last_error'],
  ssf_sets: 'all',
};

/**
 * The rows of `leases` that background workers take, renew and hand back on their own clock: the audit streamer's and
 * the provisioning pusher's per stream or target, the scheduled directory sync's and the token purge's. Any other
 * lease a request left behind (the migrations lease, say) still counts as a change.
 */
const BACKGROUND_LEASES = ['audit-stream:', 'ssf-stream:', 'provisioning:', 'directory-sync:', 'oidc.purge'];
const isBackgroundRow = (table: string, row: Record<string, unknown>): boolean =>
  table === 'leases' && BACKGROUND_LEASES.some((prefix) => String(row.name).startsWith(prefix));

/**
 * Every row of every table as one string: two equal snapshots mean a request changed nothing at all.
 * `login_attempts` can be left out where a test's failed logins are expected to count. Leaving out
 * `events` leaves out `event_positions` too: on MySQL/MariaDB its counter moves with every event written
 * (src/common/events/event-positions.ts).
 */
export async function databaseState(svc: TestService, except: string[] = []): Promise<string> {
  const left = except.includes('events') ? [...except, 'event_positions'] : except;
  const tables = (await listTables(svc.dataSource)).filter((t) => t !== 'migrations' && !left.includes(t)).sort();
  // The tables are read at once: on MariaDB the pool reads them side by side (a snapshot is taken before and after
  // many requests of the property and attack tests); the dump keeps the tables' order.
  const read = tables.filter((t) => BACKGROUND[t] !== 'all');
  const contents = await Promise.all(
    read.map(async (t) => {
      const rows: Record<string, unknown>[] = await svc.dataSource.query(`SELECT * FROM ${svc.dataSource.driver.escape(t)}`);
      const skip = BACKGROUND[t] ?? [];
      return rows.filter((row) => !isBackgroundRow(t, row)).map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !skip.includes(column))));
    }),
  );
  return JSON.stringify(Object.fromEntries(read.map((t, i) => [t, contents[i]])));
}
