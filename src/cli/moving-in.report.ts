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

/** Kinds each part's users add to: summed over the parts. Groups, clients and roles are in every part: the first part's word. */
const PER_USER = new Set(['user', 'grant']);
/** A path into one user of a part: `users[3]…` (Keycloak) or `[3]…` (Auth0's array). */
const USER_PATH = /^(users)?\[(\d+)\]/;

/**
 * The parts' reports as one (docs/migrating.md, "The command"): users and grants summed, groups, clients and roles
 * as the first part found them (later parts see them again, as unchanged or with their members' changes), user
 * paths numbered in the whole file, and what repeats in every part (a client's unmapped field) once.
 */
export class MergedReport {
  private readonly parts: PartReport[] = [];
  private readonly counts: Record<string, Counts> = {};
  private readonly failures: PartReport['failures'] = [];
  private readonly unmapped: PartReport['unmapped'] = [];
  private readonly seen = new Set<string>();
  private readonly secrets: { clientId: string; clientSecret?: string }[] = [];

  /** `separate`: each part is an object of its own (ZITADEL's organizations), so every count is summed. */
  constructor(private readonly separate = false) {}

  add(part: PartReport, offset: number): void {
    const first = this.parts.length === 0;
    this.parts.push(part);
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

  /**
   * The credentials made for applications whose export holds none, for the operator to put into those applications:
   * printed once, never written to the report file.
   */
  issued(): string {
    if (this.secrets.length === 0) return '';
    const lines = ['new client credentials (shown once; put them into the applications):'];
    for (const s of this.secrets) lines.push(`  ${s.clientId}${s.clientSecret ? `  ${s.clientSecret}` : '  (public client, no secret)'}`);
    return `${lines.join('\n')}\n`;
  }

  failed(): boolean {
    return this.failures.length > 0;
  }

  whole(): object {
    const first = this.parts[0];
    return {
      source: first?.source,
      dryRun: first?.dryRun,
      organization: first?.organization,
      migrationIds: this.parts.map((p) => p.migrationId),
      counts: this.counts,
      failures: this.failures,
      unmapped: this.unmapped,
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
      ...Object.entries(this.counts).map(([kind, c]) => [kind, ...[c.created, c.updated, c.unchanged, c.failed].map(String)]),
    ];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    for (const row of rows) lines.push(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
    for (const f of this.failures) lines.push(`failed: ${f.kind} ${f.sourceId}: ${f.message}`);
    if (this.unmapped.length > 0) lines.push(`${this.unmapped.length} field(s) not carried over (listed with their reasons by --report)`);
    return `${lines.join('\n')}\n`;
  }
}
