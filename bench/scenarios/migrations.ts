/**
 * Moving in (POST /admin/v1/migrations, source keycloak): one realm export per size into a fresh organization, with
 * every user holding a PBKDF2-SHA256 password credential as Keycloak writes it (computed once and reused: the
 * migration stores hashes as given) and membership of one of ten groups; timed from sending the request to the parsed
 * report, with the service's peak resident memory.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { adminToken } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { startService, withPeakMemory } from '../lib/processes.js';

function realm(name: string, users: number): string {
  const salt = randomBytes(16);
  const credential = {
    type: 'password',
    secretData: JSON.stringify({
      value: pbkdf2Sync('bench password', salt, 27500, 64, 'sha256').toString('base64'),
      salt: salt.toString('base64'),
      additionalParameters: {},
    }),
    credentialData: JSON.stringify({ hashIterations: 27500, algorithm: 'pbkdf2-sha256', additionalParameters: {} }),
  };
  const groups = Array.from({ length: 10 }, (_, g) => ({ id: `${name}-group-${g}`, name: `team${g}`, path: `/team${g}`, subGroups: [] }));
  const people = Array.from({ length: users }, (_, i) => ({
    id: `${name}-${i}`,
    username: `user${i}`,
    enabled: true,
    createdTimestamp: 1_690_000_000_000,
    firstName: 'Bench',
    lastName: `User ${i}`,
    email: `user${i}@${name}.example.com`,
    emailVerified: true,
    credentials: [credential],
    realmRoles: [`default-roles-${name}`],
    groups: [`/team${i % 10}`],
  }));
  return JSON.stringify({ source: 'keycloak', document: { id: name, realm: name, groups, users: people } });
}

export async function runMigrations(ctx: Context): Promise<void> {
  const store = await ctx.newStore();
  try {
    const service = await startService(store, 1);
    try {
      const token = adminToken(store.dataDir);
      for (const size of ctx.options.importSizes) {
        const payload = realm(`kc${size}`, size);
        const { result: seconds, peakMb } = await withPeakMemory(service.pid, () => migrateOnce(service.url, token, payload, size));
        ctx.record({
          scenario: 'migrations',
          label: 'Keycloak realm, one request',
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

async function migrateOnce(url: string, token: string, payload: string, size: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/admin/v1/migrations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: payload,
  });
  const report = (await res.json()) as { counts?: { user?: { created: number } } };
  const seconds = (performance.now() - started) / 1000;
  const created = report.counts?.user?.created ?? 0;
  if (res.status !== 200 || created !== size)
    throw new Error(`migration answered ${res.status}, ${created} of ${size} users: ${JSON.stringify(report).slice(0, 500)}`);
  return seconds;
}
