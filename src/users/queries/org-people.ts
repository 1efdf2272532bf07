import type { EntityManager } from 'typeorm';
import { foldedColumn } from '../../common/database/name-search.js';

/**
 * The condition that the user `userIdSql` names is a person of the organization, for another module's statement that
 * lists its own rows by their person's organization (docs/architecture.md, "Data": the users table is named only
 * here). `userIdSql` is the caller's column expression (a constant of the caller, never a value); `orgIdParameter`
 * names the query builder's parameter that holds the organization's id. A removed person's rows match no organization.
 */
export function personOfOrganization(userIdSql: string, orgIdParameter: string): string {
  return `${userIdSql} IN (SELECT id FROM users WHERE org_id = :${orgIdParameter})`;
}

/**
 * `userIdSql` names a user of the organization whose user name contains the query: `:<patternParameter>` is
 * `likeContains(query)` (src/common/database/name-search.ts), compared by the service's one case rule.
 */
export function personOfOrganizationNamed(manager: EntityManager, userIdSql: string, orgIdParameter: string, patternParameter: string): string {
  return `${userIdSql} IN (SELECT id FROM users WHERE org_id = :${orgIdParameter} AND ${foldedColumn(manager, 'user_name')} LIKE :${patternParameter} ESCAPE '!')`;
}
