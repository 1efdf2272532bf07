/**
 * Moving in (POST /admin/v1/migrations, source keycloak) against its floor, the users import (spec §C,
 * POST /admin/v1/import) of the same users, in the same run on the same service. Per size, in a fresh organization each:
 * 1. the floor: the same users (names, address, the same password hash as the migration stores it) in one import request;
 * 2. one realm export as `kc.sh export` of Keycloak 26 writes it (every user with a password credential from Keycloak's
 *    default provider, Argon2id at its defaults: version 1.3, 7 MiB, 5 passes, 1 lane, 32 bytes; computed once and
 *    reused, as hashes are stored as given) and membership of one of ten groups, in one migration request;
 * 3. the same realm as a file through `portcullis import keycloak` (read as a stream, sent in parts of 5,000 users).
 * Each timed from the request (or the command's start) to the parsed report, with the service's peak resident memory,
 * and for the command its own. `BENCH_MIGRATION_SIZES=10000,100000` replaces the run's import sizes.
 */
import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { passwordHashOf } from '../../src/migrations/keycloak/keycloak-credentials.js';
import { passwordCredential } from '../../test/migrations/support/keycloak-realm.js';
import { adminToken } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import type { Measurement } from '../lib/measurement.js';
import { startService, withPeakMemory } from '../lib/processes.js';

interface Realm {
  head: Record<string, unknown>;
  user: (i: number) => Record<string, unknown>;
  /** The stored credential as the login verifies it (the import's `hashedPassword`). */
  hash: string;
}

async function realmParts(name: string): Promise<Realm> {
  const credential = await passwordCredential('bench password', 'argon2id');
  const converted = passwordHashOf(credential.secretData, credential.credentialData);
  if (!converted.ok) throw new Error(converted.reason);
  const groups = Array.from({ length: 10 }, (_, g) => ({
    id: `${name}-group-${g}`,
    name: `team${g}`,
    path: `/team${g}`,
    attributes: {},
    realmRoles: [],
    clientRoles: {},
    subGroups: [],
  }));
  const user = (i: number) => ({
    id: `${name}-${i}`,
    username: `user${i}`,
    firstName: 'Bench',
    lastName: `User ${i}`,
    email: `user${i}@${name}.example.com`,
    emailVerified: true,
    createdTimestamp: 1_690_000_000_000,
    enabled: true,
    totp: false,
    credentials: [credential],
    disableableCredentialTypes: [],
    requiredActions: [],
    realmRoles: [`default-roles-${name}`],
    notBefore: 0,
    groups: [`/team${i % 10}`],
  });
  return { head: { id: name, realm: name, enabled: true, groups }, user, hash: converted.value };
}

/** The floor's body: the same users as the spec's import takes them. */
function importBody(name: string, realm: Realm, users: number): string {
  const humanUsers = Array.from({ length: users }, (_, i) => {
    const u = realm.user(i);
    return {
      userId: `${name}-${i}`,
      user: {
        userName: u.username,
        profile: { firstName: u.firstName, lastName: u.lastName },
        email: { email: u.email, isEmailVerified: true },
        hashedPassword: { value: realm.hash },
      },
    };
  });
  return JSON.stringify({ dataOrgs: { orgs: [{ orgId: name, org: { name }, humanUsers }] }, timeout: '30m' });
}

function migrationBody(realm: Realm, users: number): string {
  return JSON.stringify({ source: 'keycloak', document: { ...realm.head, users: Array.from({ length: users }, (_, i) => realm.user(i)) } });
}

/** The realm as `kc.sh export --file` writes it, written a user at a time. */
async function realmFile(path: string, realm: Realm, users: number): Promise<void> {
  const out = createWriteStream(path);
  const write = (text: string) => (out.write(text) ? Promise.resolve() : new Promise<void>((resolve) => out.once('drain', () => resolve())));
  await write(`${JSON.stringify(realm.head).slice(0, -1)},"users":[`);
  for (let i = 0; i < users; i++) await write(`${i === 0 ? '' : ','}${JSON.stringify(realm.user(i))}`);
  await write(']}');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

const BIN = fileURLToPath(new URL('../../../bin/portcullis.js', import.meta.url));

export async function runMigrations(ctx: Context): Promise<void> {
  const sizes = process.env.BENCH_MIGRATION_SIZES?.split(',').map(Number) ?? ctx.options.importSizes;
  const store = await ctx.newStore();
  const dir = mkdtempSync(join(tmpdir(), 'bench-migrations-'));
  try {
    let service = await startService(store, 1);
    try {
      const token = adminToken(store.dataDir);
      for (const size of sizes) {
        // Each path its own realm and organization, so no run finds the users of another.
        const floorRealm = await realmParts(`floor${size}`);
        const floor = await withPeakMemory(service.pid, () =>
          post(`${service.url}/admin/v1/import`, token, importBody(`floor${size}`, floorRealm, size), importedCount, size),
        );
        record(ctx, floorMeasurement(size, floor.result, floor.peakMb));

        const requestRealm = await realmParts(`kc${size}`);
        // Each path against a process of its own (same data, same port): a process's resident memory does not
        // shrink back after a run, so the next path's peak would otherwise be the last one's.
        service = await restart(service, store);
        const body = migrationBody(requestRealm, size);
        const request = await withPeakMemory(service.pid, () => post(`${service.url}/admin/v1/migrations`, token, body, migratedCount, size));
        record(ctx, ours('migrations.request', 'Keycloak realm, one migration request', size, request.result, request.peakMb));

        const file = join(dir, `cli${size}.json`);
        await realmFile(file, await realmParts(`cli${size}`), size);
        service = await restart(service, store);
        const command = await withPeakMemory(service.pid, () => viaCommand(service.url, join(store.dataDir, 'admin.pat'), file, size));
        const label = `Keycloak realm file, portcullis import keycloak (command peak ${command.result.commandMb} MB)`;
        record(ctx, ours('migrations.command', label, size, command.result.seconds, command.peakMb));
        rmSync(file);
        console.error(
          `migrations: ${size} users (a request of ${(Buffer.byteLength(body) / 1e6).toFixed(0)} MB): import ${floor.result.toFixed(1)} s, migration ${request.result.toFixed(1)} s ` +
            `(${(size / request.result / (size / floor.result)).toFixed(3)}× the import's rate), command ${command.result.seconds.toFixed(1)} s`,
        );
      }
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await store.drop();
  }
}

async function restart(service: Awaited<ReturnType<typeof startService>>, store: Parameters<typeof startService>[0]) {
  const port = Number(new URL(service.url).port);
  await service.stop();
  return startService(store, 1, port);
}

function ours(scenario: string, label: string, size: number, seconds: number, peakMb: number): Measurement {
  return { scenario, label, kind: 'portcullis', server: 'Portcullis WORKERS=1', workers: 1, size, unit: 'users/s', rate: size / seconds, errors: 0, peakMb };
}

/** The floor, as the peer of the one-request migration: the same users through the import, the same service. */
function floorMeasurement(size: number, seconds: number, peakMb: number): Measurement {
  return {
    scenario: 'migrations.request',
    label: 'Keycloak realm, one migration request',
    kind: 'peer',
    server: 'users import (POST /admin/v1/import), the same users',
    nextTo: 1,
    size,
    unit: 'users/s',
    rate: size / seconds,
    errors: 0,
    peakMb,
  };
}

function record(ctx: Context, m: Measurement): void {
  console.error(`migrations: ${m.server}, ${m.label}: ${m.size} users at ${m.rate.toFixed(0)} users/s, service peak ${m.peakMb} MB`);
  ctx.record(m);
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

const importedCount = (json: unknown) =>
  (json as { success?: { orgs: { humanUserIds: string[] }[] } }).success?.orgs.reduce((n, o) => n + o.humanUserIds.length, 0) ?? 0;
const migratedCount = (json: unknown) => (json as { counts?: { user?: { created: number } } }).counts?.user?.created ?? 0;

/** One request timed to its parsed answer, which must account for every user. */
async function post(url: string, token: string, payload: string, count: (json: unknown) => number, size: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: payload });
  const json: unknown = await res.json();
  const seconds = (performance.now() - started) / 1000;
  if (res.status !== 200 || count(json) !== size)
    throw new Error(`${url} answered ${res.status}, ${count(json)} of ${size} users: ${JSON.stringify(json).slice(0, 500)}`);
  return seconds;
}
