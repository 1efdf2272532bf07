import assert from 'node:assert/strict';
import bcrypt from 'bcryptjs';
import type { TestService } from '../support/service.js';

/** One `humanUsers[]` item as the import request carries it: a userId and a user with a bcrypt password hash. */
export interface ImportUserItem {
  userId: string;
  user: Record<string, unknown>;
}

export interface ImportResponse {
  success: { orgs: { orgId: string; humanUserIds: string[] }[] };
  errors: { type: string; id: string; message: string }[];
}

export const PASSWORD = 'Imported-Passw0rd!';
/** Hashed once per run: hashing is not what these tests are about. */
export const BCRYPT_HASH = bcrypt.hashSync(PASSWORD, 4);

export function humanUser(userId: string, userName = `user-${userId}`, extra: Record<string, unknown> = {}): ImportUserItem {
  return {
    userId,
    user: {
      userName,
      profile: { firstName: 'Gigi', lastName: `Giraffe ${userId}` },
      email: { email: `${userName}@example.com`, isEmailVerified: true },
      hashedPassword: { value: BCRYPT_HASH },
      ...extra,
    },
  };
}

export function importBody(orgs: { orgId?: string; org?: { name: string }; humanUsers?: unknown[] }[], timeout?: string): Record<string, unknown> {
  return { dataOrgs: { orgs }, ...(timeout === undefined ? {} : { timeout }) };
}

export async function postImport(svc: TestService, body: unknown, token = svc.adminToken): Promise<ImportResponse> {
  const res = await svc.api<ImportResponse>('POST', '/admin/v1/import', { token, body });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

export function importedIds(response: ImportResponse, orgId?: string): string[] {
  return response.success.orgs.filter((o) => orgId === undefined || o.orgId === orgId).flatMap((o) => o.humanUserIds);
}

export function userErrors(response: ImportResponse): Map<string, string> {
  return new Map(response.errors.filter((e) => e.type === 'user').map((e) => [e.id, e.message]));
}

/** Users and `user.human.added` events of an organization, straight from the database. */
export async function storedCounts(svc: TestService, orgId: string): Promise<{ users: number; events: number }> {
  const [users] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM users WHERE org_id = ? AND type = 'human'`, [orgId]);
  const [events] = await svc.dataSource.query(`SELECT COUNT(*) AS n FROM events WHERE resource_owner = ? AND type = 'user.human.added'`, [orgId]);
  return { users: Number(users.n), events: Number(events.n) };
}

export async function storedHash(svc: TestService, userId: string): Promise<string | null> {
  const [row] = await svc.dataSource.query('SELECT password_hash AS h FROM users WHERE id = ?', [userId]);
  return row?.h ?? null;
}
