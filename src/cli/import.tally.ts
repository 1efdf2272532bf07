import { sentUserIds } from './import-batches.js';
import type { ImportFileOrg } from './import-batches.js';

export interface ImportResponse {
  success: { orgs: { orgId: string; humanUserIds: string[] }[] };
  errors: { type: string; id: string; message: string }[];
}

const ORG_EXISTS = 'the organization already exists; its users are added to it';
const SHOWN_ERRORS = 20;

/** What all batches of one CLI run achieved, for the summary and the report file. */
export class ImportTally {
  private readonly imported = new Map<string, string[]>();
  private readonly errors: ImportResponse['errors'] = [];
  private readonly existingOrgs = new Set<string>();
  private readonly createdOrgs = new Set<string>();

  /** Records a response; returns how many users it imported. */
  add(response: ImportResponse): number {
    let done = 0;
    const orgNotes = new Set(response.errors.filter((e) => e.type === 'org' && e.message === ORG_EXISTS).map((e) => e.id));
    for (const { orgId, humanUserIds } of response.success.orgs) {
      // The first batch that names an organization tells whether it existed; later batches always say so.
      if (!this.imported.has(orgId)) (orgNotes.has(orgId) ? this.existingOrgs : this.createdOrgs).add(orgId);
      const list = this.imported.get(orgId) ?? [];
      for (const id of humanUserIds) list.push(id);
      this.imported.set(orgId, list);
      done += humanUserIds.length;
    }
    for (const error of response.errors) {
      if (error.type === 'timeout') continue; // the CLI sends the rest again
      if (error.type === 'org' && error.message === ORG_EXISTS) continue; // an existing organization is not a failure (docs/product-rules.md)
      this.errors.push(error);
    }
    return done;
  }

  /** The users of a request that are neither in its successes nor in its error entries. */
  leftOut(orgs: ImportFileOrg[], response: ImportResponse): ImportFileOrg[] {
    const answered = new Set([...response.success.orgs.flatMap((o) => o.humanUserIds), ...response.errors.filter((e) => e.type === 'user').map((e) => e.id)]);
    const orgFailed = new Set(response.errors.filter((e) => e.type === 'org' && e.message !== ORG_EXISTS).map((e) => e.id));
    const left: ImportFileOrg[] = [];
    for (const org of orgs) {
      if (org.orgId !== undefined && orgFailed.has(org.orgId)) continue;
      const ids = sentUserIds(org);
      const users = (org.humanUsers ?? []).filter((_, i) => ids[i] !== '' && !answered.has(ids[i]));
      if (users.length > 0) left.push({ ...org, humanUsers: users });
    }
    return left;
  }

  failed(): boolean {
    return this.errors.length > 0;
  }

  summary(total: number, seconds: number): string {
    const imported = [...this.imported.values()].reduce((n, ids) => n + ids.length, 0);
    const rate = seconds > 0 ? Math.round(imported / seconds) : imported;
    const lines = [
      `Imported ${imported} of ${total} users in ${seconds.toFixed(1)} s (${rate} users/s).`,
      `Organizations: ${this.createdOrgs.size} created, ${this.existingOrgs.size} already existing.`,
      `Errors: ${this.errors.length}`,
      ...this.errors.slice(0, SHOWN_ERRORS).map((e) => `  ${e.type} ${e.id || '(no id)'}: ${e.message}`),
    ];
    if (this.errors.length > SHOWN_ERRORS) lines.push(`  … and ${this.errors.length - SHOWN_ERRORS} more (--report F lists them all)`);
    return `${lines.join('\n')}\n`;
  }

  report(): ImportResponse {
    return { success: { orgs: [...this.imported].map(([orgId, humanUserIds]) => ({ orgId, humanUserIds })) }, errors: this.errors };
  }
}
