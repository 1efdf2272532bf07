import { flag, list, object, text } from '../document-checks.js';
import type { Json } from '../document-checks.js';
import { DocumentFault, MAX_USERS_PER_REQUEST } from '../migration-plan.js';
import type { MigrationPlan, PlannedUser, Unmapped } from '../migration-plan.js';

/** Hashes Auth0 stores for database connections: bcrypt (docs/migrating.md, "Auth0"). */
const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

/** Fields of an exported user that are read, or that describe Auth0's own bookkeeping. */
const READ = new Set([
  'user_id',
  'email',
  'email_verified',
  'username',
  'given_name',
  'family_name',
  'name',
  'nickname',
  'blocked',
  'created_at',
  'phone_number',
  'identities',
  'app_metadata',
  'user_metadata',
  'updated_at',
  'last_login',
  'last_ip',
  'logins_count',
  'picture',
  'phone_verified',
]);

/**
 * Auth0's bulk user export (the job's NDJSON lines, as one JSON array) with, optionally, the lines of the
 * password-hash export Auth0's support provides, joined on `_id` (the `user_id` after `auth0|`) or else the address.
 * Each user keeps its `user_id` as its id, so `sub` stays; roles, metadata and social links are listed as unmapped.
 */
export function planAuth0(document: unknown, passwordHashes: unknown): MigrationPlan {
  if (!Array.isArray(document)) throw new DocumentFault('document', 'must be an array of the export’s users (one object per line of its NDJSON file)');
  if (document.length > MAX_USERS_PER_REQUEST)
    throw new DocumentFault(
      'document',
      `holds ${document.length} users, more than ${MAX_USERS_PER_REQUEST} per request: send them in parts (portcullis import auth0 does)`,
    );
  const hashes = hashesById(passwordHashes);
  const plan: MigrationPlan = { container: 'auth0', orgName: 'Auth0', users: [], groups: [], clients: [], failures: [], unmapped: [] };
  document.forEach((value, i) => {
    const user = checkUser(value, `document[${i}]`);
    const mapped = mapUser(user, i, hashes);
    plan.users.push(mapped.user);
    plan.unmapped.push(...mapped.unmapped);
  });
  return plan;
}

function checkUser(value: unknown, path: string): Json {
  const user = object(value, path);
  text(user.user_id, `${path}.user_id`, true);
  for (const name of ['email', 'username', 'given_name', 'family_name', 'name', 'nickname', 'created_at', 'phone_number']) text(user[name], `${path}.${name}`);
  for (const name of ['email_verified', 'blocked']) flag(user[name], `${path}.${name}`);
  if (user.username === undefined && user.email === undefined) throw new DocumentFault(`${path}.username`, 'is required when the user has no email');
  if (typeof user.created_at === 'string' && Number.isNaN(Date.parse(user.created_at)))
    throw new DocumentFault(`${path}.created_at`, 'must be a date (ISO 8601)');
  list(user.identities, `${path}.identities`).forEach((identity, j) => {
    const one = object(identity, `${path}.identities[${j}]`);
    for (const name of ['provider', 'connection']) text(one[name], `${path}.identities[${j}].${name}`);
  });
  for (const name of ['app_metadata', 'user_metadata']) if (user[name] !== undefined && user[name] !== null) object(user[name], `${path}.${name}`);
  return user;
}

function hashesById(value: unknown): Map<string, string> {
  const byKey = new Map<string, string>();
  list(value, 'passwordHashes').forEach((line, i) => {
    const path = `passwordHashes[${i}]`;
    const entry = object(line, path);
    const raw = entry._id;
    const id = typeof raw === 'string' ? raw : typeof raw === 'object' && raw !== null ? (raw as Json).$oid : undefined;
    if (typeof id !== 'string' || id === '') throw new DocumentFault(`${path}._id`, 'is required: a string or {"$oid": …}');
    text(entry.email, `${path}.email`);
    text(entry.passwordHash, `${path}.passwordHash`, true);
    if (!BCRYPT.test(entry.passwordHash as string)) throw new DocumentFault(`${path}.passwordHash`, 'must be a bcrypt hash ($2a$, $2b$ or $2y$)');
    byKey.set(`id:${id}`, entry.passwordHash as string);
    if (typeof entry.email === 'string') byKey.set(`email:${entry.email.toLowerCase()}`, entry.passwordHash as string);
  });
  return byKey;
}

function mapUser(user: Json, index: number, hashes: Map<string, string>): { user: PlannedUser; unmapped: Unmapped[] } {
  const path = `[${index}]`;
  const userId = user.user_id as string;
  const email = (user.email as string | undefined) ?? null;
  const unmapped: Unmapped[] = [];
  // A database connection's id is `auth0|<_id>`; the hash export names the user by that `_id`.
  const local = userId.slice(userId.indexOf('|') + 1);
  const passwordHash = hashes.get(`id:${local}`) ?? (email ? hashes.get(`email:${email.toLowerCase()}`) : undefined) ?? null;
  for (const [j, identity] of ((user.identities as Json[] | undefined) ?? []).entries()) {
    if (identity.provider === 'auth0') continue;
    unmapped.push({
      path: `${path}.identities[${j}]`,
      reason:
        'a link to a social or enterprise connection: add it as an upstream IdP (docs/federation.md); the user links again at the first sign-in through it',
    });
  }
  for (const name of ['app_metadata', 'user_metadata'] as const) {
    for (const key of Object.keys((user[name] as Json | undefined) ?? {})) {
      unmapped.push({
        path: `${path}.${name}.${key}`,
        reason: key === 'roles' && name === 'app_metadata' ? 'roles kept in metadata: grant them as project roles' : 'metadata has no counterpart here',
      });
    }
  }
  for (const key of Object.keys(user)) if (!READ.has(key)) unmapped.push({ path: `${path}.${key}`, reason: 'a field without a counterpart here' });
  if (user.phone_verified === true) unmapped.push({ path: `${path}.phone_verified`, reason: 'phone numbers arrive unverified' });
  return {
    user: {
      sourceId: userId,
      userName: (user.username as string | undefined) ?? (email as string),
      firstName: (user.given_name as string | undefined) ?? '',
      lastName: (user.family_name as string | undefined) ?? '',
      email,
      emailVerified: user.email_verified === true,
      phone: (user.phone_number as string | undefined) ?? null,
      preferredLanguage: null,
      enabled: user.blocked !== true,
      createdAt: typeof user.created_at === 'string' ? Date.parse(user.created_at) : null,
      passwordHash,
      totpSecret: null,
      passwordChangeRequired: false,
    },
    unmapped,
  };
}
