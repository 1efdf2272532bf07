import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DEVICE_CODE } from './device-codes.js';

/** RFC 8628 §3.5: after `slow_down` "the interval MUST be increased by 5 seconds for this and all subsequent requests". */
export const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * Records a device's poll of a pending device code in its row, so that every process sees the same last poll and
 * interval: true when it came at least the interval after the previous poll. Otherwise the poll is still recorded
 * and the row's interval grows by SLOW_DOWN_STEP_SECONDS, which the device must now keep (RFC 8628 §3.5 `slow_down`).
 * The first statement is conditional, so of two polls arriving together only one passes.
 */
export async function recordDevicePoll(uow: UnitOfWork, idHash: string, defaultIntervalSeconds: number, now = Date.now()): Promise<boolean> {
  const inTime = await uow.write(
    'UPDATE oidc_payloads SET last_polled_at = ? WHERE model = ? AND id_hash = ? AND (last_polled_at IS NULL OR last_polled_at + COALESCE(poll_interval, ?) * 1000 <= ?)',
    [now, DEVICE_CODE, idHash, defaultIntervalSeconds, now],
  );
  if (inTime > 0) return true;
  await uow.write('UPDATE oidc_payloads SET last_polled_at = ?, poll_interval = COALESCE(poll_interval, ?) + ? WHERE model = ? AND id_hash = ?', [
    now,
    defaultIntervalSeconds,
    SLOW_DOWN_STEP_SECONDS,
    DEVICE_CODE,
    idHash,
  ]);
  return false;
}
