/**
 * Moving in (POST /admin/v1/migrations, source keycloak): one realm export per size into a fresh organization, with
 * every user holding a PBKDF2-SHA256 password credential as Keycloak writes it (computed once and reused: the
 * migration stores hashes as given) and membership of one of ten groups; timed from sending the request to the parsed
 * report, with the service's peak resident memory. Then the same realm as a file through `portcullis import keycloak`
 * (read as a stream, sent in parts of 5,000 users), with the peak of the service and of the command.
 * `BENCH_MIGRATION_SIZES=100000` runs only these sizes, and only through the command.
 */
import { execFile } from 'node:child_process';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminToken } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { startService, withPeakMemory } from '../lib/processes.js';

function realmParts(name: string): { head: Record<string, unknown>; user: (i: number) => Record<string, unknown> } {
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
  const user = (i: number) => ({
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
  });
  return { head: { id: name, realm: name, groups }, user };
}

function realm(name: string, users: number): string {
  const { head, user } = realmParts(name);
  return JSON.stringify({ source: 'keycloak', document: { ...head, users: Array.from({ length: users }, (_, i) => user(i)) } });
}

/** The realm as `kc.sh export --file` writes it, written a user at a time. */
async function realmFile(path: string, name: string, users: number): Promise<void> {
  const { head, user } = realmParts(name);
  const out = createWriteStream(path);
  const write = (text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve())));
  await write(`${JSON.stringify(head).slice(0, -1)},"users":[`);
  for (let i = 0; i < users; i++) await write(`${i === 0 ? '' : ','}${JSON.stringify(user(i))}`);
  await write(']}');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

const BIN = fileURLToPath(new URL('../../../bin/portcullis.js', import.meta.url));

export async function runMigrations(ctx: Context): Promise<void> {
  const only = process.env.BENCH_MIGRATION_SIZES?.split(',').map(Number);
  const store = await ctx.newStore();
  const dir = mkdtempSync(join(tmpdir(), 'bench-migrations-'));
  try {
    const service = await startService(store, 1);
    try {
      const token = adminToken(store.dataDir);
      for (const size of only ?? ctx.options.importSizes) {
        if (!only) {
          const payload = realm(`kc${size}`, size);
          const { result: seconds, peakMb } = await withPeakMemory(service.pid, () => migrateOnce(service.url, token, payload, size));
          record(ctx, 'Keycloak realm, one request', size, seconds, peakMb);
        }
        const file = join(dir, `cli${size}.json`);
        await realmFile(file, `cli${size}`, size);
        const { result, peakMb } = await withPeakMemory(service.pid, () => viaCommand(service.url, join(store.dataDir, 'admin.pat'), file, size));
        record(ctx, `Keycloak realm file, portcullis import keycloak (command peak ${result.commandMb} MB)`, size, result.seconds, peakMb);
        rmSync(file);
      }
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await store.drop();
  }
}

function record(ctx: Context, label: string, size: number, seconds: number, peakMb: number): void {
  console.error(`migrations: ${label}: ${size} users in ${seconds.toFixed(1)} s, service peak ${peakMb} MB`);
  ctx.record({
    scenario: 'migrations',
    label,
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

/** The command run to its end, with its own peak resident memory. */
async function viaCommand(url: string, tokenFile: string, file: string, size: number): Promise<{ seconds: number; commandMb: number }> {
  const started = performance.now();
  let pid = 0;
  const exited = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, 'import', 'keycloak', file, '--url', url, '--token-file', tokenFile],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    pid = child.pid ?? 0;
  });
  const { result, peakMb } = await withPeakMemory(pid, () => exited);
  const seconds = (performance.now() - started) / 1000;
  if (result.code !== 0 || !new RegExp(`^user +${size} +0 +0 +0$`, 'm').test(result.stdout))
    throw new Error(`the command exited ${result.code}: ${result.stdout.slice(0, 500)} ${result.stderr.slice(-500)}`);
  return { seconds, commandMb: peakMb };
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
