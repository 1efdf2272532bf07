import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { MigrationSource } from '../migrations/api/migrations.dto.js';
import { DocumentFault } from '../migrations/migration-plan.js';
import { planDocument } from '../migrations/sources.js';
import { CliError } from './import.command.js';
import { MergedReport } from './moving-in.report.js';
import type { PartReport } from './moving-in.report.js';
import { partsOf, shiftIndex } from '../migrations/reading/export-reader.js';
import type { ExportReader } from '../migrations/reading/export-reader.js';
import { InputFault, auth0Reader, keycloakReader, zitadelReader } from './moving-in.sources.js';

export const MOVING_IN_USAGE = `Usage: portcullis import keycloak|auth0|zitadel FILE [--org ID] [--dry-run] [--rotate-secrets] [--hashes F] [--url URL] [--token-file F] [--batch N] [--report F]

Moves an export of another identity service in through POST /admin/v1/migrations (docs/migrating.md):
  keycloak FILE   a realm export (kc.sh export --file), or the directory of kc.sh export --dir
  auth0 FILE      the bulk user export job's file (NDJSON, or a JSON array)
  zitadel FILE    the admin API's export (POST /admin/v1/export), one request per organization

  --hashes F        auth0: the password-hash export from Auth0's support (NDJSON)
  --org ID          migrate into this organization (default: one named after the source, made on the first run)
  --dry-run         compute the report and write nothing
  --rotate-secrets  new client secrets instead of the source's, printed once
  --url URL         service address (default http://localhost:$PORT)
  --token-file F    an IAM_OWNER bearer token (default $DATA_DIR/admin.pat)
  --batch N         users per request (default 5000; at most 100000)
  --report F        write the whole report to F as JSON

The file is read as a stream: every part is checked before the first is sent (a fault anywhere writes nothing),
then sent. Running it again changes nothing; a changed source updates what changed.
Applications whose export holds no client secret (ZITADEL) get new credentials, printed once.
Exit status: 0 nothing failed, 1 something failed (listed), 2 bad input or the service refused.`;

const SOURCES = ['keycloak', 'auth0', 'zitadel'] as const;

/** `portcullis import keycloak|auth0 FILE`: 0 nothing failed, 1 something did, 2 bad input (docs/migrating.md, "The command"). */
export async function runMovingIn(args: string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  try {
    return await movingIn(args, out, err);
  } catch (error) {
    if (error instanceof CliError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      err.write(`portcullis: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }
}

async function movingIn(args: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      'rotate-secrets': { type: 'boolean', default: false },
      hashes: { type: 'string' },
      url: { type: 'string', default: `http://localhost:${process.env.PORT ?? '8080'}` },
      'token-file': { type: 'string', default: join(process.env.DATA_DIR ?? './data', 'admin.pat') },
      batch: { type: 'string', default: '5000' },
      report: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    out.write(`${MOVING_IN_USAGE}\n`);
    return 0;
  }
  const [source, file, ...extra] = positionals;
  if (!SOURCES.includes(source as (typeof SOURCES)[number]) || file === undefined || extra.length > 0)
    throw new CliError(`expected: import ${SOURCES.join('|')} FILE\n\n${MOVING_IN_USAGE}`);
  if (values.hashes !== undefined && source !== 'auth0') throw new CliError('--hashes is for auth0 exports');
  const batch = Number(values.batch);
  if (!/^\d+$/.test(values.batch) || batch < 1 || batch > 100_000) throw new CliError(`--batch must be a whole number from 1 to 100000, got "${values.batch}"`);
  const token = (
    await readFile(values['token-file'], 'utf8').catch((e: NodeJS.ErrnoException) => {
      throw new CliError(`cannot read the token file ${values['token-file']}: ${e.code ?? e.message}`);
    })
  ).trim();
  const reader = source === 'keycloak' ? await keycloakReader(file) : source === 'zitadel' ? await zitadelReader(file) : await auth0Reader(file, values.hashes);
  const skeleton = await reader.skeleton();
  const perPart = reader.perPart ?? batch;
  const unit = reader.unit ?? 'users';

  const total = await checkEveryPart(source as MigrationSource, reader, skeleton, perPart);
  if (source === 'zitadel' && values.org !== undefined && total > 1)
    throw new CliError(`--org names one organization, and ${file} holds ${total}: export them one at a time (orgIds), or leave --org out`);
  const report = new MergedReport(reader.perPart !== undefined);
  let sent = 0;
  for await (const part of partsOf(reader, skeleton, perPart)) {
    const answer = await post(values.url, token, {
      source,
      ...part.request,
      ...(values.org !== undefined ? { orgId: values.org } : {}),
      options: { dryRun: values['dry-run'], ...(values['rotate-secrets'] ? { secrets: 'rotate' } : {}) },
    });
    report.add(answer, part.offset);
    sent += part.users;
    err.write(`\r${sent} of ${total} ${unit}`);
  }
  err.write('\n');
  out.write(report.table());
  out.write(report.issued());
  if (values.report) await writeFile(values.report, `${JSON.stringify(report.whole(), null, 2)}\n`);
  return report.failed() ? 1 : 0;
}

/** Every part through the service's own checks (planDocument) before anything is sent; a fault names its path in the file. */
async function checkEveryPart(source: MigrationSource, reader: ExportReader, skeleton: unknown, batch: number): Promise<number> {
  let total = 0;
  for await (const part of partsOf(reader, skeleton, batch)) {
    try {
      planDocument(source, part.request.document, { passwordHashes: part.request.passwordHashes });
    } catch (error) {
      if (!(error instanceof DocumentFault)) throw error;
      throw new InputFault(`invalid document: ${shiftIndex(error.path, part.offset)}: ${error.problem}`);
    }
    total += part.users;
  }
  return total;
}

async function post(base: string, token: string, body: unknown): Promise<PartReport> {
  const url = new URL('/admin/v1/migrations', base).toString();
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });
  } catch (error) {
    throw new CliError(`cannot reach ${url}: ${(error as Error).cause ?? (error as Error).message}. Running it again is safe.`);
  }
  const text = await res.text();
  if (res.status === 200) return JSON.parse(text) as PartReport;
  let message = text;
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {}
  const hint =
    res.status === 413 ? ' (use a smaller --batch)' : res.status === 401 || res.status === 403 ? ' (check --token-file: an IAM_OWNER token is needed)' : '';
  throw new CliError(`the service answered ${res.status}: ${message}${hint}`);
}
