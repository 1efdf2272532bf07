import { ReportMerge } from '../migrations/report-merge.js';

type Counts = { created: number; updated: number; unchanged: number; failed: number };

/** The answer of one POST /admin/v1/migrations (docs/migrating.md, "Running it"). */
export interface PartReport {
  migrationId: string;
  source: string;
  dryRun: boolean;
  organization: { id: string; name: string; created: boolean };
  counts: Record<string, Counts>;
  failures: { kind: string; sourceId: string; message: string }[];
  unmapped: { path: string; reason: string }[];
  secrets?: { clientId: string; clientSecret?: string }[];
}

/**
 * The parts' reports as one (docs/migrating.md, "The command"), merged as the service merges the parts of one
 * request (ReportMerge), with every part's migration id.
 */
export class MergedReport {
  private readonly parts: PartReport[] = [];
  private readonly merge: ReportMerge;

  /** `separate`: each part is an object of its own (ZITADEL's organizations), so every count is summed. */
  constructor(separate = false) {
    this.merge = new ReportMerge(separate);
  }

  add(part: PartReport, offset: number): void {
    this.parts.push(part);
    this.merge.add(part, offset);
  }

  /**
   * The credentials made for applications whose export holds none, for the operator to put into those applications:
   * printed once, never written to the report file.
   */
  issued(): string {
    if (this.merge.secrets.length === 0) return '';
    const lines = ['new client credentials (shown once; put them into the applications):'];
    for (const s of this.merge.secrets) lines.push(`  ${s.clientId}${s.clientSecret ? `  ${s.clientSecret}` : '  (public client, no secret)'}`);
    return `${lines.join('\n')}\n`;
  }

  failed(): boolean {
    return this.merge.failures.length > 0;
  }

  whole(): object {
    const first = this.parts[0];
    return {
      source: first?.source,
      dryRun: first?.dryRun,
      organization: first?.organization,
      migrationIds: this.parts.map((p) => p.migrationId),
      counts: this.merge.counts,
      failures: this.merge.failures,
      unmapped: this.merge.unmapped,
    };
  }

  /** The counts as a table, then the failures; the unmapped fields are counted (the whole list goes to --report). */
  table(): string {
    const first = this.parts[0];
    const lines: string[] = [];
    if (first) {
      const org = first.organization;
      lines.push(`${first.dryRun ? 'dry run: nothing written. ' : ''}organization ${org.name}${org.id ? ` (${org.id})` : ''}${org.created ? ', new' : ''}`);
    }
    const rows = [
      ['kind', 'created', 'updated', 'unchanged', 'failed'],
      ...Object.entries(this.merge.counts).map(([kind, c]) => [kind, ...[c.created, c.updated, c.unchanged, c.failed].map(String)]),
    ];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    for (const row of rows) lines.push(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
    for (const f of this.merge.failures) lines.push(`failed: ${f.kind} ${f.sourceId}: ${f.message}`);
    if (this.merge.unmapped.length > 0) lines.push(`${this.merge.unmapped.length} field(s) not carried over (listed with their reasons by --report)`);
    return `${lines.join('\n')}\n`;
  }
}
