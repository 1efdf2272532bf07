import type { EventDto } from '../../admin/dto/events.dto.js';
import { chainOf } from './audit-chain.js';
import { redacted } from './redaction.js';

/** One audit record as a stream delivers it (docs/audit-and-signals.md, "The record"). */
export interface AuditRecord {
  id: string;
  sequence: number;
  time: string;
  type: string;
  organization: { id: string; name: string | null } | null;
  actor: { userId: string | null; userName: string | null; clientId?: string; act?: unknown[] };
  target: { type: string; id: string };
  /** Where the change came from; null: the event log does not record it for this event. */
  source: { ip: string | null; userAgent: string | null; requestId: string | null } | null;
  changes: Record<string, { before?: unknown; after: unknown }>;
  chain: string;
}

/** What a record needs beside its event: names, read once per batch. */
export interface RecordNames {
  organizations: Map<string, string>;
  users: Map<string, string>;
}

/** The stream's position before a batch: the last record's sequence and chain. */
export interface ChainState {
  sequence: number;
  chain: string;
}

/**
 * The records of a batch of events, numbered on from `state` and chained to it. The same events with the same names
 * give the same records, so a batch sent again after a crash carries the same sequences and chain values.
 */
export function recordsOf(events: { eventId: string; event: EventDto }[], names: RecordNames, state: ChainState): AuditRecord[] {
  let { sequence, chain } = state;
  return events.map(({ eventId, event }) => {
    const record = recordOf(eventId, event, names, ++sequence);
    chain = chainOf(chain, record as unknown as Record<string, unknown>);
    return { ...record, chain };
  });
}

function recordOf(eventId: string, event: EventDto, names: RecordNames, sequence: number): Omit<AuditRecord, 'chain'> {
  const owner = event.aggregate.resourceOwner;
  const payload = (event.payload ?? {}) as Record<string, unknown>;
  const userId = event.editor.userId;
  return {
    id: eventId,
    sequence,
    time: event.creationDate,
    type: event.type.type,
    organization: owner === 'instance' ? null : { id: owner, name: names.organizations.get(owner) ?? null },
    actor: {
      userId,
      userName: userId ? (names.users.get(userId) ?? null) : null,
      ...(typeof payload.clientId === 'string' ? { clientId: payload.clientId } : {}),
      ...(Array.isArray(payload.act) ? { act: redacted(payload.act) as unknown[] } : {}),
    },
    target: { type: event.aggregate.type.type, id: event.aggregate.id },
    source: null,
    changes: changesOf(payload),
  };
}

/**
 * The fields an event changed. An event that records both sides (`before` and `after` objects, as a settings change
 * does) gives each changed field its `before`; other events record the state they set, which is each field's `after`.
 */
function changesOf(payload: Record<string, unknown>): AuditRecord['changes'] {
  const clean = redacted(payload) as Record<string, unknown>;
  const before = clean.before;
  const after = clean.after;
  if (isObject(before) && isObject(after)) {
    const changes: AuditRecord['changes'] = {};
    for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
      if (JSON.stringify(before[field]) !== JSON.stringify(after[field])) changes[field] = { before: before[field] ?? null, after: after[field] ?? null };
    }
    return changes;
  }
  return Object.fromEntries(Object.entries(clean).map(([field, value]) => [field, { after: value }]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
