/** One organization of an import file (docs/product-rules.md, "Import and event search"), users still raw JSON. */
export interface ImportFileOrg {
  orgId?: string;
  org?: { name: string };
  humanUsers?: unknown[];
}

export interface ImportBatch {
  body: { dataOrgs: { orgs: ImportFileOrg[] }; timeout?: string };
  users: number;
}

/**
 * Splits an import request into requests of at most `size` users, organizations kept in order.
 * An organization spread over several batches is named in each (with its `org` details, so the
 * first batch can create it); one without users gets a batch entry of its own so it is still created.
 */
export function splitImport(orgs: ImportFileOrg[], size: number, timeout?: string): ImportBatch[] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError('batch size must be a positive integer');
  const batches: ImportBatch[] = [];
  let current: ImportFileOrg[] = [];
  let users = 0;
  const flush = () => {
    if (current.length === 0) return;
    batches.push({ body: { dataOrgs: { orgs: current }, ...(timeout === undefined ? {} : { timeout }) }, users });
    current = [];
    users = 0;
  };
  for (const org of orgs) {
    const items = org.humanUsers ?? [];
    if (items.length === 0) current.push({ ...org, humanUsers: [] });
    for (let i = 0; i < items.length; ) {
      const take = Math.min(size - users, items.length - i);
      current.push({ ...org, humanUsers: items.slice(i, i + take) });
      users += take;
      i += take;
      if (users === size) flush();
    }
  }
  flush();
  return batches;
}

/** The userIds a batch sent, per organization, to find out which ones a timeout left out. */
export function sentUserIds(org: ImportFileOrg): string[] {
  return (org.humanUsers ?? []).map((item) => {
    const id = (item as { userId?: unknown } | null)?.userId;
    return typeof id === 'string' ? id : '';
  });
}
