import type { Failure, Unmapped } from './migration-plan.js';
import type { Outcome } from './migration-tally.js';

/** What one part of an export came to: its counts, failures, unmapped fields, and credentials made for it. */
export interface PartOutcome {
  counts: Record<string, Record<Outcome, number>>;
  failures: Failure[];
  unmapped: Unmapped[];
  secrets?: { clientId: string; clientSecret?: string }[];
}

/** Kinds each part's users add to: summed over the parts. Groups, clients and roles are in every part: the first part's word. */
const PER_USER = new Set(['user', 'grant']);
/** A path into one user of a part: `users[3]…` (Keycloak) or `[3]…` (Auth0's array). */
const USER_PATH = /^(users)?\[(\d+)\]/;

/**
 * The parts of one export as one report (docs/migrating.md, "Large exports"): users and grants summed, groups,
 * clients and roles as the first part found them (later parts see them again, as unchanged or with their members'
 * changes), user paths numbered in the whole export, and what repeats in every part (a client's unmapped field) once.
 */
export class ReportMerge {
  readonly counts: Record<string, Record<Outcome, number>> = {};
  readonly failures: Failure[] = [];
  readonly unmapped: Unmapped[] = [];
  readonly secrets: { clientId: string; clientSecret?: string }[] = [];
  private readonly seen = new Set<string>();
  private parts = 0;

  /** `separate`: each part is an object of its own (ZITADEL's organizations), so every count is summed. */
  constructor(private readonly separate = false) {}

  add(part: PartOutcome, offset: number): void {
    const first = this.parts === 0;
    this.parts += 1;
    for (const [kind, counts] of Object.entries(part.counts)) {
      if (!first && !PER_USER.has(kind) && !this.separate) continue;
      const sum = (this.counts[kind] ??= { created: 0, updated: 0, unchanged: 0, failed: 0 });
      for (const outcome of ['created', 'updated', 'unchanged', 'failed'] as const) sum[outcome] += counts[outcome];
    }
    this.secrets.push(...(part.secrets ?? []));
    for (const failure of part.failures) {
      const key = `${failure.kind}\n${failure.sourceId}\n${failure.message}`;
      if (!PER_USER.has(failure.kind) && this.seen.has(key)) continue;
      this.seen.add(key);
      this.failures.push(failure);
    }
    for (const entry of part.unmapped) {
      const match = USER_PATH.exec(entry.path);
      if (match) {
        const path = `${match[1] ?? ''}[${Number(match[2]) + offset}]${entry.path.slice(match[0].length)}`;
        this.unmapped.push({ path, reason: entry.reason });
      } else if (first || this.separate) this.unmapped.push(entry);
    }
  }
}
