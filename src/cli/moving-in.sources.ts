import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Duplex, Readable } from 'node:stream';
import parser from 'stream-json';
import ignore from 'stream-json/filters/ignore.js';
import pick from 'stream-json/filters/pick.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import streamValues from 'stream-json/streamers/stream-values.js';
import { CliError } from './import.command.js';

/**
 * An export read as a stream (docs/migrating.md, "The command"): what is not users, held whole (a realm's clients,
 * groups and roles are small), and the users one at a time, so that memory is bounded by a part of users, not by
 * the document's size. `document` builds one request's document around a part of the users.
 */
export interface ExportReader {
  /** Everything but the users (Keycloak: the realm without `users`). */
  skeleton(): Promise<Record<string, unknown>>;
  users(): AsyncIterable<Record<string, unknown>>;
  /** One request's `document` (and Auth0's `passwordHashes`) around a part of the users. */
  request(skeleton: Record<string, unknown>, users: Record<string, unknown>[]): { document: unknown; passwordHashes?: unknown[] };
  /** Items per request when the source fixes it (ZITADEL: one organization each); else the command's --batch. */
  perPart?: number;
  /** What `users()` yields, for the progress line. */
  unit?: string;
}

/** A file that does not parse is the operator's input fault: exit code 2 with its name and the parser's words. */
export class InputFault extends CliError {}

/** The file through stream-json's parser and the stages; a fault of any stage ends the last one with it. */
async function* tokens(path: string, stages: Duplex[]): AsyncIterable<unknown> {
  const streams: (Readable | Duplex)[] = [createReadStream(path), parser(), ...stages];
  const last = streams[streams.length - 1];
  for (let i = 0; i < streams.length - 1; i++) {
    streams[i].on('error', (error) => last.destroy(error));
    streams[i].pipe(streams[i + 1] as Duplex);
  }
  try {
    for await (const item of last as AsyncIterable<{ value: unknown }>) yield item.value;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputFault(code ? `cannot read ${path}: ${code}` : `${path} is not valid JSON: ${(error as Error).message}`);
  } finally {
    for (const stream of streams) stream.destroy();
  }
}

function values(path: string, stages: Duplex[]): AsyncIterable<unknown> {
  return tokens(path, [...stages, streamValues.asStream()]);
}

function arrayItems(path: string, stages: Duplex[]): AsyncIterable<unknown> {
  return tokens(path, [...stages, streamArray.asStream()]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A Keycloak realm export: one file as `kc.sh export --file` writes it, or a directory export (`kc.sh export --dir`),
 * whose `<realm>-realm.json` is the realm and whose `<realm>-users-N.json` files hold the users.
 */
export async function keycloakReader(path: string): Promise<ExportReader> {
  const files = await keycloakFiles(path);
  return {
    async skeleton() {
      let realm: unknown;
      for await (const value of values(files.realm, [ignore.asStream({ filter: 'users' })])) realm = value;
      if (!isObject(realm)) throw new InputFault(`${files.realm} must hold a realm: a JSON object with "realm"`);
      return realm;
    },
    async *users() {
      for (const file of [files.realm, ...files.users]) {
        for await (const user of arrayItems(file, [pick.asStream({ filter: 'users' })])) yield user as Record<string, unknown>;
      }
    },
    request: (skeleton, users) => ({ document: { ...skeleton, users } }),
  };
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
  const hashes = new Map<string, Record<string, unknown>>();
  if (hashesPath !== undefined) {
    for await (const line of jsonLines(hashesPath)) {
      const id = auth0HashId(line);
      if (id !== undefined) hashes.set(`id:${id}`, line);
      if (typeof line.email === 'string') hashes.set(`email:${line.email.toLowerCase()}`, line);
    }
  }
  return {
    skeleton: async () => ({}),
    users: () => jsonLines(path),
    request: (_skeleton, users) => {
      if (hashesPath === undefined) return { document: users };
      const lines = new Set<Record<string, unknown>>();
      for (const user of users) {
        const id = typeof user.user_id === 'string' ? user.user_id.slice(user.user_id.indexOf('|') + 1) : undefined;
        const line = hashes.get(`id:${id}`) ?? (typeof user.email === 'string' ? hashes.get(`email:${user.email.toLowerCase()}`) : undefined);
        if (line) lines.add(line);
      }
      return { document: users, passwordHashes: [...lines] };
    },
  };
}

/** The hash export's `_id`: `{"$oid": "…"}` as Auth0 writes it (MongoDB extended JSON), or a plain string. */
function auth0HashId(line: Record<string, unknown>): string | undefined {
  const id = line._id;
  if (typeof id === 'string') return id;
  if (isObject(id) && typeof id.$oid === 'string') return id.$oid;
  return undefined;
}

/** The objects of an NDJSON file, or of a JSON array when the file starts with `[`. */
export async function* jsonLines(path: string): AsyncIterable<Record<string, unknown>> {
  if ((await firstCharacter(path)) === '[') {
    for await (const item of arrayItems(path, [])) {
      if (!isObject(item)) throw new InputFault(`${path}: every item must be a JSON object`);
      yield item;
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
  await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new InputFault(`cannot read ${path}: ${error.code ?? error.message}`);
  });
  return {
    skeleton: async () => ({}),
    async *users() {
      for await (const org of arrayItems(path, [pick.asStream({ filter: /^(dataOrgs\.)?orgs$/ })])) {
        if (!isObject(org)) throw new InputFault(`${path}: every organization must be a JSON object`);
        yield org;
      }
    },
    request: (_skeleton, orgs) => ({ document: { orgs } }),
    perPart: 1,
    unit: 'organizations',
  };
}
