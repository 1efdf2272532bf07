/** What replaces a secret in a record (docs/audit-and-signals.md, "The record"). */
export const REDACTED = '[redacted]';

/**
 * Member names whose values are secrets, hashes, codes or tokens. The event store already refuses such members at
 * the top of a payload (src/common/events/event-store.ts); a record also looks inside nested values (a settings
 * change's `before` and `after`), so that nothing a SIEM stores can open anything.
 */
const SECRET_NAME = /(password|secret|hash|token|code|privatekey|^key$|otp|seed|credential|assertion|cookie)/i;

/** A copy of `value` in which every member with a secret's name holds "[redacted]", at any depth. */
export function redacted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redacted);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) out[name] = SECRET_NAME.test(name) && member !== null ? REDACTED : redacted(member);
  return out;
}
