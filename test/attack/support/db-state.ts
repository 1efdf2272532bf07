import type { TestService } from '../../support/service.js';
import { listTables } from '../../support/secret-scan.js';

/**
 * What the webhook dispatcher changes in the background, whatever the requests do: its leases and
 * heartbeat, its progress through the event log and its delivery log (src/webhooks).
 */
const BACKGROUND: Record<string, string[] | 'all'> = {
  webhook_subscriptions: ['lease_owner', 'leased_until', 'cursor_position', 'next_attempt_at'],
  webhook_deliveries: 'all',
  webhook_dispatchers: 'all',
};

/**
 * Every row of every table as one string: two equal snapshots mean a request changed nothing at all.
 * `login_attempts` can be left out where a test's failed logins are expected to count. Leaving out
 * `events` leaves out `event_positions` too: on MySQL/MariaDB its counter moves with every event written
 * (src/common/events/event-positions.ts).
 */
export async function databaseState(svc: TestService, except: string[] = []): Promise<string> {
  const left = except.includes('events') ? [...except, 'event_positions'] : except;
  const tables = (await listTables(svc.dataSource)).filter((t) => t !== 'migrations' && !left.includes(t)).sort();
  const dump: Record<string, unknown> = {};
  for (const t of tables) {
    if (BACKGROUND[t] === 'all') continue;
    const rows: Record<string, unknown>[] = await svc.dataSource.query(`SELECT * FROM ${svc.dataSource.driver.escape(t)}`);
    const skip = BACKGROUND[t] ?? [];
    dump[t] = rows.map((row) => Object.fromEntries(Object.entries(row).filter(([column]) => !skip.includes(column))));
  }
  return JSON.stringify(dump);
}
