import { planAuth0 } from '../auth0/auth0.source.js';
import { invalidTextMessage, invalidTextPath } from '../../common/text/valid-text.js';
import { DocumentFault } from '../migration-plan.js';
import type { JsonFile, Span } from './json-file.js';

/**
 * An export read in parts (docs/migrating.md, "Large exports"): what is not users, held whole (a realm's clients,
 * groups and roles are small), and the users one at a time, so that memory is bounded by a part of users, not by
 * the document's size. The service reads a request's document so, and `portcullis import` its file.
 */
export interface ExportReader {
  /** Everything but the users (Keycloak: the realm without `users`); read first. */
  skeleton(): Promise<unknown>;
  users(): AsyncIterable<unknown>;
  /** One part's `document` (and Auth0's `passwordHashes`) around some of the users. */
  request(skeleton: unknown, users: unknown[]): PartDocument;
  /** Items per part when the source fixes it (ZITADEL: one organization each). */
  perPart?: number;
  /** What `users()` yields, for a progress line. */
  unit?: string;
}

export interface PartDocument {
  document: unknown;
  passwordHashes?: unknown[];
}

export interface Part {
  request: PartDocument;
  /** The place of the part's first user among all. */
  offset: number;
  users: number;
}

/** The parts of an export: one when it has no users, else one per `size` users, each around the skeleton. */
export async function* partsOf(reader: ExportReader, skeleton: unknown, size: number): AsyncIterable<Part> {
  let users: unknown[] = [];
  let offset = 0;
  let any = false;
  for await (const user of reader.users()) {
    users.push(user);
    if (users.length === size) {
      yield { request: reader.request(skeleton, users), offset, users: users.length };
      any = true;
      offset += users.length;
      users = [];
    }
  }
  if (users.length > 0 || !any) yield { request: reader.request(skeleton, users), offset, users: users.length };
}

/** A part's `document.users[3]` (Keycloak) or `document[3]` (Auth0) as its place in the whole export. */
export function shiftIndex(path: string, offset: number): string {
  return path.replace(/^(document(?:\.users|\.orgs)?)\[(\d+)\]/, (_, head: string, i: string) => `${head}[${Number(i) + offset}]`);
}

/** A value's text checked as every body's is (a lone surrogate or U+0000 is refused), naming where it is. */
export function checkedText<T>(value: T, path: string): T {
  const found = invalidTextPath({ _: value });
  if (found === undefined) return value;
  const where = `${path}${found.slice(1)}`;
  throw new DocumentFault(where, invalidTextMessage(where).slice(where.length + 2));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `document.users`, or `users` where the path starts at the file. */
function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * A Keycloak realm (`kc.sh export --file`, or the `document` of a request) at `span`, with the users of a directory
 * export's `<realm>-users-N.json` files after its own.
 */
export function keycloakExport(file: JsonFile, span: Span | undefined, path: string, userFiles: JsonFile[] = []): ExportReader {
  let ownUsers: Span | undefined;
  return {
    async skeleton() {
      if (span === undefined) return undefined;
      if ((await file.kind(span)) !== 'object') return checkedText(await file.parse(span, path), path);
      const realm: Record<string, unknown> = {};
      for await (const { key, value } of file.members(span, path)) {
        // Users that are no array stay in the skeleton, for the realm's check to name.
        if (key === 'users' && (await file.kind(value)) === 'array') {
          ownUsers = value;
          delete realm.users;
        } else {
          realm[key] = checkedText(await file.parse(value, join(path, key)), join(path, key));
        }
      }
      return realm;
    },
    async *users() {
      let index = 0;
      const at = join(path, 'users');
      if (ownUsers) for await (const user of file.elements(ownUsers, at)) yield checkedText(user, `${at}[${index++}]`);
      for (const usersFile of userFiles) {
        for await (const { key, value } of usersFile.members(usersFile.whole, '')) {
          if (key !== 'users') continue;
          for await (const user of usersFile.elements(value, 'users')) yield checkedText(user, `${at}[${index++}]`);
        }
      }
    },
    request: (skeleton, users) => ({ document: isObject(skeleton) ? { ...skeleton, users } : skeleton }),
  };
}

/**
 * Auth0's users (the bulk export's objects) with the lines of its password-hash export: a part's `passwordHashes`
 * are the lines of its users only. The hash lines are held by id and address while the users stream (a line is
 * about 200 bytes).
 */
export function auth0Export(users: () => AsyncIterable<unknown>, hashes: unknown[] | undefined): ExportReader {
  const byKey = new Map<string, unknown>();
  for (const line of Array.isArray(hashes) ? hashes : []) {
    if (!isObject(line)) continue;
    const id = auth0HashId(line);
    if (id !== undefined) byKey.set(`id:${id}`, line);
    if (typeof line.email === 'string') byKey.set(`email:${line.email.toLowerCase()}`, line);
  }
  return {
    // Every line checked once, where it stands in the export; a part then holds the lines of its users only.
    skeleton: async () => {
      if (hashes !== undefined) planAuth0([], hashes);
      return undefined;
    },
    users,
    request: (_skeleton, part) => {
      if (hashes === undefined) return { document: part };
      const lines = new Set<unknown>();
      for (const user of part) {
        if (!isObject(user)) continue;
        const id = typeof user.user_id === 'string' ? user.user_id.slice(user.user_id.indexOf('|') + 1) : undefined;
        const line = byKey.get(`id:${id}`) ?? (typeof user.email === 'string' ? byKey.get(`email:${user.email.toLowerCase()}`) : undefined);
        if (line) lines.add(line);
      }
      return { document: part, passwordHashes: [...lines] };
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

/**
 * A ZITADEL export's organizations (`{"orgs": […]}` or `{"dataOrgs": {"orgs": […]}}`), one part each: an
 * organization's users, projects and grants refer to each other, so each is read whole.
 */
export function zitadelExport(file: JsonFile, span: Span, path: string): ExportReader {
  return {
    skeleton: async () => undefined,
    async *users() {
      const orgs = await orgsOf(file, span, path);
      if (orgs === undefined) return;
      let index = 0;
      for await (const org of file.elements(orgs.span, orgs.path)) yield checkedText(org, `${orgs.path}[${index++}]`);
    },
    request: (_skeleton, orgs) => ({ document: { orgs } }),
    perPart: 1,
    unit: 'organizations',
  };
}

async function orgsOf(file: JsonFile, span: Span, path: string): Promise<{ span: Span; path: string } | undefined> {
  if ((await file.kind(span)) !== 'object') return undefined;
  let found: { span: Span; path: string } | undefined;
  for await (const { key, value } of file.members(span, path)) {
    if (key === 'orgs') found = { span: value, path: join(path, 'orgs') };
    else if (key === 'dataOrgs' && (await file.kind(value)) === 'object') found = await orgsOf(file, value, join(path, 'dataOrgs'));
  }
  return found && (await file.kind(found.span)) === 'array' ? found : undefined;
}

/** A document read whole, as one part: a ZITADEL request's one organization (its parts refer to each other). */
export function wholeExport(file: JsonFile, span: Span | undefined, path: string): ExportReader {
  return {
    skeleton: async () => (span === undefined ? undefined : checkedText(await file.parse(span, path), path)),
    async *users() {},
    request: (skeleton) => ({ document: skeleton }),
  };
}
