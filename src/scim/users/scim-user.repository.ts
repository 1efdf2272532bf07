import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { UserEntity } from '../../users/entities/user.entity.js';
import { humanCount } from '../../users/org-user-counts.js';
import type { ListQuery } from '../query/scim-list-query.js';
import { compileFilter } from '../query/scim-filter.sql.js';
import { ScimError } from '../errors/scim-error.js';

/** Sort keys (entity properties, see scim-list-query.ts) → columns; `nullable` ones sort unassigned last. */
const SORT_COLUMNS = new Map<string, { column: string; nullable: boolean }>([
  ['createdAt', { column: 'created_at', nullable: false }],
  ['changedAt', { column: 'changed_at', nullable: false }],
  ['id', { column: 'id', nullable: false }],
  ['userNameLower', { column: 'user_name_lower', nullable: false }],
  ['familyName', { column: 'family_name', nullable: true }],
  ['givenName', { column: 'given_name', nullable: true }],
  ['emailLower', { column: 'email_lower', nullable: true }],
]);

/**
 * Query shapes of the SCIM surface over human users of one organization (STYLE §5): the filter is
 * compiled to parameterised SQL; pages are ordered by the sort key, then by id, so that paging is
 * stable under ties (RFC 7644 §3.4.2.4). Hand-written SQL rather than the query builder: this is the
 * hottest read path of SCIM, and building and hydrating through TypeORM cost more than the query.
 */
@Injectable()
export class ScimUserRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The human user; inside a transaction when given its manager. */
  async findHuman(orgId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<UserEntity> {
    const [row]: Record<string, unknown>[] = await manager.query(`SELECT u.* FROM users u WHERE u.id = ? AND u.org_id = ? AND u.type = 'human'`, [id, orgId]);
    if (!row) throw ScimError.notFound(`user ${id} not found`);
    return this.hydrate(row);
  }

  async search(orgId: string, query: ListQuery): Promise<{ total: number; users: UserEntity[] }> {
    let where = `u.org_id = :orgId AND u.type = 'human'`;
    let named: Record<string, unknown> = { orgId };
    if (query.filter) {
      const compiled = compileFilter(query.filter, this.dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql');
      where += ` AND ${compiled.sql}`;
      named = { ...named, ...compiled.params };
    }
    const users = query.count === 0 ? [] : await this.page(where, named, query);
    // The total needs its own query only when this page does not reveal it (a full page, or past the end);
    // without a filter it is the organization's kept count rather than a walk over all its users.
    const known = users.length < query.count && (users.length > 0 || query.startIndex === 1);
    if (known) return { total: query.startIndex - 1 + users.length, users };
    return { total: query.filter ? await this.count(where, named) : await humanCount(this.dataSource.manager, orgId), users };
  }

  private async page(where: string, named: Record<string, unknown>, query: ListQuery): Promise<UserEntity[]> {
    const order = orderBy(query);
    const paging = { ...named, limit: query.count, offset: query.startIndex - 1 };
    // From the first row a plain LIMIT reads only the page; deeper, a deferred join takes the page's
    // ids from the (org, type, key, id) index alone, so skipped rows are never read.
    const sql =
      query.startIndex === 1
        ? `SELECT u.* FROM users u WHERE ${where} ORDER BY ${order} LIMIT :limit`
        : `SELECT u.* FROM users u JOIN (SELECT u.id FROM users u WHERE ${where} ORDER BY ${order} LIMIT :limit OFFSET :offset) p ON p.id = u.id ORDER BY ${order}`;
    const rows: Record<string, unknown>[] = await this.query(sql, paging);
    return rows.map((row) => this.hydrate(row));
  }

  private async count(where: string, named: Record<string, unknown>): Promise<number> {
    const [row] = await this.query(`SELECT COUNT(*) AS n FROM users u WHERE ${where}`, named);
    return Number(row?.n ?? 0);
  }

  /** Named parameters (`:name`) to the drivers' positional `?`, in order of appearance. */
  private query(sql: string, named: Record<string, unknown>): Promise<Record<string, unknown>[]> {
    const values: unknown[] = [];
    const positional = sql.replace(/:([A-Za-z]\w*)/g, (_, name: string) => {
      if (!Object.hasOwn(named, name)) throw new Error(`no value for SQL parameter :${name}`);
      values.push(named[name]);
      return '?';
    });
    return this.dataSource.query(positional, values);
  }

  /** A raw row as the entity TypeORM would build: driver type conversions and column transformers. */
  private hydrate(row: Record<string, unknown>): UserEntity {
    const user = new UserEntity();
    for (const column of this.dataSource.getMetadata(UserEntity).columns) {
      (user as unknown as Record<string, unknown>)[column.propertyName] = this.dataSource.driver.prepareHydratedValue(row[column.databaseName], column);
    }
    return user;
  }
}

function orderBy(query: ListQuery): string {
  const direction = query.sort?.descending ? 'DESC' : 'ASC';
  const key = SORT_COLUMNS.get(query.sort?.property ?? 'createdAt');
  if (!key) throw new Error(`no sort column for ${String(query.sort?.property)}`);
  // Unassigned values sort last whatever the order (as scimmy and most providers do); both
  // databases would otherwise put NULL first in ascending order.
  const nullsLast = key.nullable ? `CASE WHEN u.${key.column} IS NULL THEN 1 ELSE 0 END ASC, ` : '';
  return `${nullsLast}u.${key.column} ${direction}, u.id ${direction}`;
}
