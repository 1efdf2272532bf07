/**
 * Import (POST /admin/v1/import, one request per size) into a fresh database: users with a bcrypt hash
 * computed once and reused (the import stores hashes as given; hashing is not what is measured), each
 * size into a new organization, timed from sending the request to the parsed response.
 */
import bcrypt from 'bcryptjs';
import { adminToken } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { startService, withPeakMemory } from '../lib/processes.js';

function body(orgId: string, users: number, hash: string): string {
  const humanUsers = Array.from({ length: users }, (_, i) => ({
    userId: `${orgId}-${i}`,
    user: {
      userName: `user${i}`,
      profile: { firstName: 'Bench', lastName: `User ${i}`, displayName: `Bench User ${i}`, preferredLanguage: 'en' },
      email: { email: `user${i}@${orgId}.example.com`, isEmailVerified: true },
      hashedPassword: { value: hash },
    },
  }));
  return JSON.stringify({ dataOrgs: { orgs: [{ orgId, org: { name: orgId }, humanUsers }] }, timeout: '30m' });
}

export async function runImport(ctx: Context): Promise<void> {
  const store = await ctx.newStore();
  const hash = bcrypt.hashSync('bench password', 10);
  try {
    const service = await startService(store, 1);
    try {
      const token = adminToken(store.dataDir);
      for (const size of ctx.options.importSizes) {
        const payload = body(`import-${size}`, size, hash);
        const { result: seconds, peakMb } = await withPeakMemory(service.pid, () => importOnce(service.url, token, payload, size));
        ctx.record({
          scenario: 'import',
          label: `import, one request`,
          kind: 'portcullis',
          server: 'Portcullis WORKERS=1',
          workers: 1,
          size,
          unit: 'users/s',
          rate: size / seconds,
          errors: 0,
          peakMb,
        });
      }
    } finally {
      await service.stop();
    }
  } finally {
    await store.drop();
  }
}

async function importOnce(url: string, token: string, payload: string, size: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/admin/v1/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: payload,
  });
  const json = (await res.json()) as { success?: { orgs: { humanUserIds: string[] }[] } };
  const seconds = (performance.now() - started) / 1000;
  const imported = json.success?.orgs.reduce((n, o) => n + o.humanUserIds.length, 0) ?? 0;
  if (res.status !== 200 || imported !== size)
    throw new Error(`import answered ${res.status}, ${imported} of ${size} users: ${JSON.stringify(json).slice(0, 500)}`);
  return seconds;
}
