import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { DocumentFault } from '../migrations/migration-plan.js';
import { auth0Export, keycloakExport, zitadelExport } from '../migrations/reading/export-reader.js';
import type { ExportReader } from '../migrations/reading/export-reader.js';
import { JsonFault, JsonFile } from '../migrations/reading/json-file.js';
import { CliError } from './import.command.js';

/** A file that does not parse is the operator's input fault: exit code 2 with its name and the parser's words. */
export class InputFault extends CliError {}

/** The reader's faults as input faults naming the file. */
function named(reader: ExportReader, path: string): ExportReader {
  const fault = (error: unknown): never => {
    if (error instanceof JsonFault) throw notJson(path, error);
    if (error instanceof DocumentFault) throw new InputFault(`invalid document: ${error.message}`);
    throw error;
  };
  return {
    ...reader,
    skeleton: () => reader.skeleton().catch(fault),
    async *users() {
      try {
        yield* reader.users();
      } catch (error) {
        fault(error);
      }
    },
  };
}

function notJson(file: string, fault: JsonFault): InputFault {
  return new InputFault(`${fault.path === '' ? file : `${file}: ${fault.path}`} is not valid JSON${fault.reason}`);
}

async function opened(path: string): Promise<JsonFile> {
  return JsonFile.open(path).catch((error: NodeJS.ErrnoException) => {
    throw new InputFault(`cannot read ${path}: ${error.code ?? error.message}`);
  });
}

/**
 * A Keycloak realm export: one file as `kc.sh export --file` writes it, or a directory export (`kc.sh export --dir`),
 * whose `<realm>-realm.json` is the realm and whose `<realm>-users-N.json` files hold the users.
 */
export async function keycloakReader(path: string): Promise<ExportReader> {
  const files = await keycloakFiles(path);
  const realm = await opened(files.realm);
  const users = await Promise.all(files.users.map(opened));
  return named(keycloakExport(realm, realm.whole, '', users), path);
}

async function keycloakFiles(path: string): Promise<{ realm: string; users: string[] }> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new InputFault(`cannot read ${path}: ${error.code ?? error.message}`);
  });
  if (!info.isDirectory()) return { realm: path, users: [] };
  const names = (await readdir(path)).sort(byNumber);
  const realms = names.filter((n) => n.endsWith('-realm.json'));
  if (realms.length !== 1) throw new InputFault(`${path} must hold one <realm>-realm.json (found ${realms.length})`);
  const realm = realms[0].slice(0, -'-realm.json'.length);
  const users = names.filter((n) => n.startsWith(`${realm}-users-`) && n.endsWith('.json'));
  return { realm: join(path, realms[0]), users: users.map((n) => join(path, n)) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `acme-users-10.json` after `acme-users-9.json`. */
function byNumber(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/**
 * Auth0's bulk user export: NDJSON as the export job writes it (one user per line), or a JSON array of the same
 * objects; with the password-hash export Auth0's support provides (NDJSON of `_id`, `email`, `passwordHash`). A
 * request's document is a part's users, and its `passwordHashes` the hash lines of those users only. The hash lines
 * are held by id and address while the users stream (a line is about 200 bytes).
 */
export async function auth0Reader(path: string, hashesPath: string | undefined): Promise<ExportReader> {
  let hashes: unknown[] | undefined;
  if (hashesPath !== undefined) {
    hashes = [];
    for await (const line of jsonLines(hashesPath)) hashes.push(line);
  }
  return named(
    auth0Export(() => jsonLines(path), hashes),
    path,
  );
}

/** The objects of an NDJSON file, or of a JSON array when the file starts with `[`. */
export async function* jsonLines(path: string): AsyncIterable<Record<string, unknown>> {
  if ((await firstCharacter(path)) === '[') {
    const file = await opened(path);
    try {
      for await (const item of file.elements(file.whole, '')) {
        if (!isObject(item)) throw new InputFault(`${path}: every item must be a JSON object`);
        yield item;
      }
    } catch (error) {
      if (error instanceof JsonFault) throw notJson(path, error);
      throw error;
    } finally {
      await file.close();
    }
    return;
  }
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new InputFault(`${basename(path)} line ${n} is not JSON: ${(error as Error).message}`);
    }
    if (!isObject(value)) throw new InputFault(`${basename(path)} line ${n} must be a JSON object`);
    yield value;
  }
}

async function firstCharacter(path: string): Promise<string | undefined> {
  const stream = createReadStream(path, { start: 0, end: 4095, encoding: 'utf8' });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      const text = chunk.replace(/^\uFEFF/, '').trimStart();
      if (text !== '') return text[0];
    }
  } catch (error) {
    throw new InputFault(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return undefined;
}

/**
 * A ZITADEL export: the `ExportDataResponse` of its admin API (`{"orgs": […]}`) or an import request's
 * `{"dataOrgs": {"orgs": […]}}`. Each organization is one request of its own, read whole (an organization's users,
 * projects and grants refer to each other).
 */
export async function zitadelReader(path: string): Promise<ExportReader> {
  const file = await opened(path);
  return named(zitadelExport(file, file.whole, ''), path);
}
