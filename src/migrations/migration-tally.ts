import type { Failure, Unmapped } from './migration-plan.js';

export type Outcome = 'created' | 'updated' | 'unchanged' | 'failed';

/** The counts and lists of one run's report, filled as it goes. */
export class MigrationTally {
  readonly counts: Record<string, Record<Outcome, number>> = {};
  readonly failures: Failure[] = [];
  readonly unmapped: Unmapped[] = [];

  count(kind: string, outcome: Outcome, n = 1): void {
    const counts = (this.counts[kind] ??= { created: 0, updated: 0, unchanged: 0, failed: 0 });
    counts[outcome] += n;
  }

  fail(failure: Failure): void {
    this.failures.push(failure);
    this.count(failure.kind, 'failed');
  }
}
