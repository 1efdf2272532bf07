import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { humanUser, importBody, storedCounts } from './import.helpers.js';

const BIN = fileURLToPath(new URL('../../../bin/portcullis.js', import.meta.url));

function portcullis(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `npx portcullis import FILE [--url URL] [--token-file F] [--batch N]` against a running service. */
describe('portcullis import (CLI)', () => {
  const svc = useService();
  let dir: string;
  let tokenFile: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'));
    tokenFile = join(svc.dataDir, 'admin.pat');
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  function writeImport(body: unknown): string {
    const file = join(dir, `${unique('import')}.json`);
    writeFileSync(file, JSON.stringify(body));
    return file;
  }

  it('imports a file in batches, reports progress per batch and ends with a summary', async () => {
    const newOrg = unique('cli-new');
    const existing = await createOrg(svc);
    const file = writeImport(
      importBody([
        { orgId: newOrg, org: { name: newOrg }, humanUsers: Array.from({ length: 700 }, () => humanUser(unique('u'))) },
        { orgId: existing.id, humanUsers: Array.from({ length: 300 }, () => humanUser(unique('u'))) },
      ]),
    );
    const report = join(dir, 'report.json');
    const run = await portcullis(['import', file, '--url', svc.url, '--token-file', tokenFile, '--batch', '250', '--report', report]);

    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^Imported 1000 of 1000 users in [\d.]+ s \(\d+ users\/s\)\.$/m);
    assert.match(run.stdout, /^Organizations: 1 created, 1 already existing\.$/m);
    assert.match(run.stdout, /^Errors: 0$/m);
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 4, 'one progress line per batch of 250');
    assert.match(lines[3], /^1000\/1000 users \| \d+ users\/s \| ETA 0s$/);
    assert.deepEqual(await storedCounts(svc, newOrg), { users: 700, events: 700 });
    assert.deepEqual(await storedCounts(svc, existing.id), { users: 300, events: 300 });
    const written = JSON.parse(readFileSync(report, 'utf8'));
    assert.equal(written.success.orgs.find((o: { orgId: string }) => o.orgId === newOrg).humanUserIds.length, 700);
  });

  it('lists the errors and exits with 2; a re-run adds only what is missing', async () => {
    const orgId = unique('cli-err');
    const users = [humanUser(unique('u')), humanUser('cli-bad-email', unique('x'), { email: { email: 'nope' } })];
    const file = writeImport(importBody([{ orgId, humanUsers: users }]));
    const first = await portcullis(['import', file, '--url', svc.url, '--token-file', tokenFile]);
    assert.equal(first.code, 2);
    assert.match(first.stdout, /^Imported 1 of 2 users/m);
    assert.match(first.stdout, /^ {2}user cli-bad-email: user\.email\.email must be an e-mail address$/m);

    const again = await portcullis(['import', file, '--url', svc.url, '--token-file', tokenFile]);
    assert.match(again.stdout, /^Imported 0 of 2 users/m);
    assert.match(again.stdout, new RegExp(`user ${users[0].userId}: a user with id "${users[0].userId}" already exists`));
    assert.deepEqual(await storedCounts(svc, orgId), { users: 1, events: 1 });
  });

  it('sends again what a request timeout left out, until everything is imported', async () => {
    const orgId = unique('cli-timeout');
    const file = writeImport(importBody([{ orgId, humanUsers: Array.from({ length: 2600 }, () => humanUser(unique('u'))) }]));
    const run = await portcullis(['import', file, '--url', svc.url, '--token-file', tokenFile, '--batch', '2600', '--timeout', '1ms']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /^Imported 2600 of 2600 users/m);
    assert.ok(run.stderr.trim().split('\n').length > 1, 'more than one request was needed');
    assert.deepEqual(await storedCounts(svc, orgId), { users: 2600, events: 2600 });
  });

  it('explains usage mistakes and an unreachable service with exit status 1', async () => {
    const missing = await portcullis(['import']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /expected exactly one FILE/);
    const badBatch = await portcullis(['import', 'x.json', '--batch', 'many']);
    assert.match(badBatch.stderr, /--batch must be a positive integer, got "many"/);
    const file = writeImport(importBody([{ orgId: 'o', humanUsers: [humanUser('u')] }]));
    const down = await portcullis(['import', file, '--url', 'http://127.0.0.1:9', '--token-file', tokenFile]);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach http:\/\/127\.0\.0\.1:9\/admin\/v1\/import: .*Re-running the import is safe\./);
  });
});
