/**
 * The floor of a SCIM `userName eq` lookup: `node:http` and better-sqlite3 on Portcullis's
 * own SQLite file, doing the work the service must do and nothing else — the bearer token's HMAC looked
 * up in `personal_access_tokens` with the user's state and roles in the same statement as the service's
 * resolver, the role checked on the organization of the path, the indexed lookup on
 * `(org_id, user_name_lower)`, and the SCIM ListResponse of the user as JSON. No framework, no logging,
 * no metrics, no request id. Reads only. Not part of the service.
 *
 *   node dist/bench/peers/scim-floor.js <port> <DATA_DIR>
 */
import { createHmac, createSecretKey, hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const [port, dataDir] = [Number(process.argv[2]), process.argv[3]];
const masterKey = Buffer.from(readFileSync(join(dataDir, 'master.key'), 'utf8').trim(), 'base64');
// The same keyed hash as src/common/crypto/secret-hasher.ts, so the stored token hashes match.
const hashKey = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'portcullis/secret-hash/v1', 32)));
const db = new Database(join(dataDir, 'portcullis.sqlite'), { fileMustExist: true });
db.pragma('busy_timeout = 5000');

const principal = db.prepare(
  `SELECT u.id AS user_id, u.org_id, u.state, p.expires_at, m.scope_type, m.scope_id, m.roles
   FROM personal_access_tokens p JOIN users u ON u.id = p.user_id LEFT JOIN memberships m ON m.user_id = u.id
   WHERE p.token_hash = ?`,
);
const byUserName = db.prepare(`SELECT u.* FROM users u WHERE u.org_id = ? AND u.type = 'human' AND u.user_name_lower = ?`);
const USERS_PATH = /^\/scim\/v2\/([^/]+)\/Users$/;
const USER_NAME_EQ = /^userName eq "([^"\\]*)"$/i;

interface PrincipalRow {
  user_id: string;
  state: string;
  expires_at: number | null;
  scope_type: string | null;
  scope_id: string | null;
  roles: string | null;
}

function mayManage(rows: PrincipalRow[], orgId: string): boolean {
  if (rows.length === 0 || rows[0].state !== 'active') return false;
  if (rows[0].expires_at !== null && rows[0].expires_at <= Date.now()) return false;
  return rows.some(
    (r) =>
      (r.scope_type === 'instance' || (r.scope_type === 'org' && r.scope_id === orgId)) &&
      (r.roles ?? '').split(',').some((role) => /^(IAM_OWNER|ORG_OWNER|ORG_USER_MANAGER)$/.test(role)),
  );
}

function scimUser(row: Record<string, any>, base: string): Record<string, unknown> {
  const stored = row.scim_attributes ? JSON.parse(row.scim_attributes) : {};
  const name: Record<string, unknown> = { givenName: row.given_name, familyName: row.family_name, formatted: `${row.given_name} ${row.family_name}` };
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    id: row.id,
    userName: row.user_name,
    name,
    displayName: row.display_name,
    preferredLanguage: row.preferred_language,
    active: row.state === 'active',
    emails: stored.emails ?? [],
    meta: {
      resourceType: 'User',
      created: new Date(row.created_at).toISOString(),
      lastModified: new Date(row.changed_at).toISOString(),
      location: `${base}/Users/${row.id}`,
      version: `W/"${row.version}"`,
    },
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/scim+json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://floor');
  const path = USERS_PATH.exec(url.pathname);
  if (req.method !== 'GET' || !path) return answer(res, 404, { status: '404' });
  const orgId = decodeURIComponent(path[1]);
  const auth = req.headers.authorization;
  const token = auth?.startsWith('Bearer ') ? auth.slice(7) : '';
  const rows = principal.all(createHmac('sha256', hashKey).update(token, 'utf8').digest('base64url')) as PrincipalRow[];
  if (!mayManage(rows, orgId)) return answer(res, 401, { status: '401' });
  const filter = USER_NAME_EQ.exec(url.searchParams.get('filter') ?? '');
  const base = `http://${req.headers.host}/scim/v2/${orgId}`;
  const users = filter ? (byUserName.all(orgId, filter[1].toLowerCase()) as Record<string, any>[]) : [];
  const resources = users.map((u) => scimUser(u, base));
  answer(res, 200, {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: resources.length,
    itemsPerPage: resources.length,
    startIndex: 1,
    Resources: resources,
  });
}).listen(port, '127.0.0.1');
