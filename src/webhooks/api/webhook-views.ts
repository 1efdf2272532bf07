import type { DeliveryRow } from '../webhook.queries.js';
import type { DeliveryDto } from './webhooks.dto.js';

/** A delivery log row as the API shows it (docs/webhooks.md, "The delivery log"). */
export function deliveryView(row: DeliveryRow): DeliveryDto {
  return {
    eventId: row.eventId,
    sequence: String(row.position),
    status: row.status,
    attempts: row.attempts,
    ...(row.lastStatus != null ? { lastStatus: row.lastStatus } : {}),
    ...(row.lastError != null ? { lastError: row.lastError } : {}),
    ...(row.status === 'pending' && row.nextAttemptAt != null ? { nextAttempt: new Date(row.nextAttemptAt).toISOString() } : {}),
  };
}
