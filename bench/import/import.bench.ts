/**
 * Import benchmark (issue 5, DESIGN §6): starts the service as a process, imports 100,000 users with
 * bcrypt hashes into a new organization in one request, then another 100,000 through the CLI in its
 * default batches of 5,000, and prints users/s for each. The hash is computed once and reused:
 * hashing is not what is measured (the import stores hashes as given).
 *
 *   npm run build && node dist/bench/import/import.bench.js [users=100000]
 *   BENCH_MYSQL_URL=mysql://root@127.0.0.1:3306 node dist/bench/import/import.bench.js   # MariaDB/MySQL
 *
 * On MySQL a fresh database is created on that server and dropped afterwards.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { createTestDatabase } from '../../test/support/database.js';
import { spawnService } from '../../test/support/process.js';

const ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const USERS = Number(process.argv[2] ?? 100_000);

function body(orgId: string, hash: string): { dataOrgs: { orgs: unknown[] }; timeout: string } {
  const humanUsers = Array.from({ length: USERS }, (_, i) => ({
    userId: `${orgId}-${i}`,
    user: {
      userName: `user${i}`,
      profile: { firstName: 'Bench', lastName: `User ${i}`, displayName: `Bench User ${i}`, preferredLanguage: 'en' },
      email: { email: `user${i}@${orgId}.example.com`, isEmailVerified: true },
      hashedPassword: { value: hash },
    },
  }));
  return { dataOrgs: { orgs: [{ orgId, org: { name: orgId }, humanUsers }] }, timeout: '30m' };
}

async function oneRequest(url: string, token: string, payload: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/admin/v1/import`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: payload,
  });
  const json = (await res.json()) as { success: { orgs: { humanUserIds: string[] }[] }; errors: unknown[] };
  const seconds = (performance.now() - started) / 1000;
  const imported = json.success?.orgs.reduce((n, o) => n + o.humanUserIds.length, 0) ?? 0;
  if (res.status !== 200 || imported !== USERS) throw new Error(`import answered ${res.status}, ${imported} users: ${JSON.stringify(json).slice(0, 500)}`);
  return seconds;
}

function viaCli(url: string, tokenFile: string, file: string): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) => {
    execFile(process.execPath, [join(ROOT, 'bin/portcullis.js'), 'import', file, '--url', url, '--token-file', tokenFile], { maxBuffer: 1 << 26 }, (error, stdout) => {
      if (error || !stdout.includes(`Imported ${USERS} of ${USERS} users`)) fail(new Error(`CLI failed: ${error?.message ?? ''}\n${stdout}`));
      else done((performance.now() - started) / 1000);
    });
  });
}

async function main(): Promise<void> {
  if (process.env.BENCH_MYSQL_URL) process.env.TEST_DATABASE_URL = process.env.BENCH_MYSQL_URL;
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-import-bench-'));
  const service = await spawnService({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...(database.url ? { DATABASE_URL: database.url } : {}) });
  try {
    const tokenFile = join(dataDir, 'admin.pat');
    const token = readFileSync(tokenFile, 'utf8').trim();
    const hash = bcrypt.hashSync('bench password', 10);
    const store = database.url ? 'MariaDB/MySQL' : 'SQLite';

    const single = JSON.stringify(body('bench-single', hash));
    const singleSeconds = await oneRequest(service.url, token, single);
    console.log(`${store}: ${USERS} users in one request (${(single.length / 1e6).toFixed(1)} MB): ${singleSeconds.toFixed(2)} s, ${Math.round(USERS / singleSeconds)} users/s`);

    const file = join(dataDir, 'bench-cli.json');
    writeFileSync(file, JSON.stringify(body('bench-cli', hash)));
    const cliSeconds = await viaCli(service.url, tokenFile, file);
    console.log(`${store}: ${USERS} users through the CLI (batches of 5000): ${cliSeconds.toFixed(2)} s, ${Math.round(USERS / cliSeconds)} users/s`);
  } finally {
    await service.stop('SIGTERM');
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
