import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { splitImport } from './import-batches.js';
import type { ImportBatch, ImportFileOrg } from './import-batches.js';
import { ImportProgress } from './import.progress.js';
import { ImportTally } from './import.tally.js';
import type { ImportResponse } from './import.tally.js';

export const IMPORT_USAGE = `Usage: portcullis import FILE [--url URL] [--token-file F] [--batch N] [--timeout D] [--report F]

Imports users with their password hashes from FILE, a POST /admin/v1/import request body
({"dataOrgs":{"orgs":[{"orgId", "org":{"name"}, "humanUsers":[...]}]}}), in batches of N users.

  --url URL         service address (default http://localhost:8080)
  --token-file F    file holding an IAM_OWNER bearer token (default ./data/admin.pat)
  --batch N         users per request (default 5000)
  --timeout D       per-request timeout, Go notation such as 5m or 1m30s (default: the file's, else 5m)
  --report F        write every success and error entry to F as JSON

Re-running an import is safe: users that exist are reported as errors and the missing ones added.
Exit status: 0 all imported, 2 some entries failed, 1 the import could not run.`;

export class CliError extends Error {}

/** `portcullis import`: splits the file into requests, shows progress, ends with a summary. */
export async function runImport(args: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WriteStream = process.stderr): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      url: { type: 'string', default: 'http://localhost:8080' },
      'token-file': { type: 'string', default: './data/admin.pat' },
      batch: { type: 'string', default: '5000' },
      timeout: { type: 'string' },
      report: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    out.write(`${IMPORT_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`expected exactly one FILE\n\n${IMPORT_USAGE}`);
  const batchSize = Number(values.batch);
  if (!/^\d+$/.test(values.batch) || batchSize < 1) throw new CliError(`--batch must be a positive integer, got "${values.batch}"`);
  const url = new URL('/admin/v1/import', values.url).toString();
  const token = (await readText(values['token-file'], 'token file')).trim();
  const file = await readImportFile(positionals[0]);

  const batches = splitImport(file.orgs, batchSize, values.timeout ?? file.timeout);
  const total = batches.reduce((n, b) => n + b.users, 0);
  const tally = new ImportTally();
  const progress = new ImportProgress(total, err);
  try {
    for (const batch of batches) await sendBatch(url, token, batch, tally, progress);
  } finally {
    progress.stop();
  }
  out.write(tally.summary(total, progress.elapsedSeconds()));
  if (values.report) await writeFile(values.report, JSON.stringify(tally.report(), null, 2));
  return tally.failed() ? 2 : 0;
}

/** Sends one batch; after a timeout entry, sends again the users the service did not get to. */
async function sendBatch(url: string, token: string, batch: ImportBatch, tally: ImportTally, progress: ImportProgress): Promise<void> {
  let body = batch.body;
  for (;;) {
    const response = await post(url, token, body);
    const done = tally.add(response);
    progress.advance(done);
    const left = tally.leftOut(body.dataOrgs.orgs, response);
    if (left.length === 0 || !response.errors.some((e) => e.type === 'timeout')) return;
    if (done === 0) throw new CliError('the service timed out without importing any user; try a smaller --batch or a longer --timeout');
    body = { ...body, dataOrgs: { orgs: left } };
  }
}

async function post(url: string, token: string, body: unknown): Promise<ImportResponse> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  } catch (error) {
    throw new CliError(`cannot reach ${url}: ${(error as Error).cause ?? (error as Error).message}. Re-running the import is safe.`);
  }
  const text = await res.text();
  if (res.status === 200) return JSON.parse(text) as ImportResponse;
  const message = (() => {
    try {
      return (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      return text;
    }
  })();
  const hint =
    res.status === 413 ? ' (use a smaller --batch)' : res.status === 401 || res.status === 403 ? ' (check --token-file: an IAM_OWNER token is needed)' : '';
  throw new CliError(`the service answered ${res.status}: ${message}${hint}`);
}

async function readImportFile(path: string): Promise<{ orgs: ImportFileOrg[]; timeout?: string }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readText(path, 'import file'));
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  const orgs = (parsed as { dataOrgs?: { orgs?: unknown } } | null)?.dataOrgs?.orgs;
  if (!Array.isArray(orgs)) throw new CliError(`${path} must hold an import request: {"dataOrgs":{"orgs":[...]}}`);
  const timeout = (parsed as { timeout?: unknown }).timeout;
  return { orgs: orgs as ImportFileOrg[], timeout: typeof timeout === 'string' ? timeout : undefined };
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
