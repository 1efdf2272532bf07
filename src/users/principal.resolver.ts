import { Inject, Injectable, Optional } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ACCESS_TOKEN_VERIFIER } from '../common/auth/principal-resolver.js';
import type { AccessTokenVerifier, PrincipalResolver } from '../common/auth/principal-resolver.js';
import type { Principal } from '../common/auth/principal.js';
import type { Role } from '../common/auth/roles.js';
import { SecretHasher } from '../common/crypto/secret-hasher.js';
import { statementsOf } from '../common/database/statements.js';
import { parseRoles } from './acting/acting-rule.js';
import { isActive } from './rules/user-state.js';

/** One row per membership of the user (one row with null scope when there is none). */
interface PrincipalRow {
  user_id: string;
  org_id: string;
  type: 'human' | 'machine';
  state: string;
  token_id?: string;
  expires_at?: number | string | null;
  scope_type: 'instance' | 'org' | null;
  scope_id: string | null;
  roles: string | null;
}

const USER_WITH_ROLES = `
  SELECT u.id AS user_id, u.org_id, u.type, u.state, m.scope_type, m.scope_id, m.roles
  FROM users u LEFT JOIN memberships m ON m.user_id = u.id`;

/**
 * Resolves bearer tokens: personal access tokens by the hash of the token, access tokens through the
 * OIDC layer when it is loaded. Each is one indexed query that also reads the user's state and roles,
 * so a deactivated, locked or removed user's tokens stop working at once, on every process.
 */
@Injectable()
export class DomainPrincipalResolver implements PrincipalResolver {
  constructor(
    private readonly dataSource: DataSource,
    private readonly hasher: SecretHasher,
    @Optional() @Inject(ACCESS_TOKEN_VERIFIER) private readonly accessTokens?: AccessTokenVerifier,
  ) {}

  async resolve(token: string): Promise<Principal | null> {
    const patRows = await statementsOf(this.dataSource).rows<PrincipalRow>(
      `SELECT u.id AS user_id, u.org_id, u.type, u.state, p.id AS token_id, p.expires_at, m.scope_type, m.scope_id, m.roles
       FROM personal_access_tokens p JOIN users u ON u.id = p.user_id LEFT JOIN memberships m ON m.user_id = u.id
       WHERE p.token_hash = ?`,
      [this.hasher.hash(token)],
    );
    if (patRows.length > 0) {
      const expiresAt = patRows[0].expires_at;
      if (expiresAt != null && Number(expiresAt) <= Date.now()) return null;
      return toPrincipal(patRows, { kind: 'personal_access_token', tokenId: patRows[0].token_id! });
    }
    const access = await this.accessTokens?.verify(token);
    if (!access) return null;
    const rows = await statementsOf(this.dataSource).rows<PrincipalRow>(`${USER_WITH_ROLES} WHERE u.id = ?`, [access.userId]);
    return toPrincipal(rows, { kind: 'access_token', clientId: access.clientId, ...(access.jkt ? { jkt: access.jkt } : {}) });
  }
}

function toPrincipal(rows: PrincipalRow[], credential: Principal['credential']): Principal | null {
  const user = rows[0];
  if (!user || !isActive(user)) return null;
  const instanceRoles = new Set<Role>();
  const orgRoles = new Map<string, Set<Role>>();
  for (const row of rows) {
    if (!row.scope_type || !row.scope_id || !row.roles) continue;
    const roles = parseRoles(row.roles);
    if (row.scope_type === 'instance') roles.forEach((r) => instanceRoles.add(r));
    else orgRoles.set(row.scope_id, new Set(roles));
  }
  return { userId: user.user_id, orgId: user.org_id, userType: user.type, instanceRoles, orgRoles, credential };
}
