import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata.js';
import { BoundedReads, ReadTooCostly } from '../../common/database/bounded-reads.js';
import { statementsOf } from '../../common/database/statements.js';
import type { Statements } from '../../common/database/statements.js';
import { UserEntity } from '../../users/entities/user.entity.js';
import { humanCount } from '../../users/org-user-counts.js';
import { countUsersWhere, humanUserPage, humanUserRow } from '../../users/queries/human-users.js';
import type { CheckpointColumn } from '../../users/queries/human-user-order.js';
import { pageFromCheckpoints } from '../../users/user-order-checkpoints.js';
import { USER_COLUMNS } from '../../users/queries/user-columns.js';
import type { UserColumn } from '../../users/queries/user-columns.js';
import type { ListQuery } from '../query/scim-list-query.js';
import { servedByIndex, tooCostly } from '../query/filter-cost.js';
import { compileFilter } from '../query/scim-filter.sql.js';
import { ScimError } from '../errors/scim-error.js';
import { encodeCursor } from '../query/scim-cursor.js';
import { keysetAfter } from '../query/scim-keyset.js';
import { PRESENTED_PROPERTIES } from './scim-user.mapper.js';
import type { PresentedUser } from './scim-user.mapper.js';

/** How rows are read: the columns selected and hydrated (every column into an entity, or what SCIM presents). */
interface Reading<T> {
  select: string;
  columns: readonly ColumnMetadata[];
  create(): T;
}

/** Attributes whose `eq` an index serves (filter-cost.ts). */
const INDEXED_USER_ATTRIBUTES = new Set(['id', 'externalid', 'username']);

/** Sort keys (entity properties, see scim-list-query.ts) → columns; `nullable` ones sort unassigned last. */
const SORT_COLUMNS = new Map<string, { column: UserColumn; nullable: boolean; numeric: boolean }>([
  ['createdAt', { column: USER_COLUMNS.createdAt, nullable: false, numeric: true }],
  ['changedAt', { column: USER_COLUMNS.changedAt, nullable: false, numeric: true }],
  ['id', { column: USER_COLUMNS.id, nullable: false, numeric: false }],
  ['userNameLower', { column: USER_COLUMNS.userNameLower, nullable: false, numeric: false }],
  ['familyName', { column: USER_COLUMNS.familyName, nullable: true, numeric: false }],
  ['givenName', { column: USER_COLUMNS.givenName, nullable: true, numeric: false }],
  ['emailLower', { column: USER_COLUMNS.emailLower, nullable: true, numeric: false }],
]);

/** The page's last sort value, read beside the presented columns when paging by cursor. */
const CURSOR_KEY = 'cursor_key';

/**
 * Query shapes of the SCIM surface over human users of one organization (STYLE §5): the filter is
 * compiled to parameterised SQL; pages are ordered by the sort key, then by id, so that paging is
 * stable under ties (RFC 7644 §3.4.2.4). The statements are the users domain's
 * (src/users/queries/human-users.ts), hand-written SQL on the hottest read path of SCIM.
 */
@Injectable()
export class ScimUserRepository {
  private entities: Reading<UserEntity> | undefined;
  private presented: Reading<PresentedUser> | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly boundedReads: BoundedReads,
  ) {}

  /** The human user; inside a transaction when given its manager. */
  async findHuman(orgId: string, id: string, manager: EntityManager = this.dataSource.manager): Promise<UserEntity> {
    const row = await humanUserRow(manager, orgId, id);
    if (!row) throw ScimError.notFound(`user ${id} not found`);
    return this.hydrate(row, this.entityReading());
  }

  /** A page of whole users (the provisioning reconcile pushes what it reads). */
  search(orgId: string, query: ListQuery): Promise<{ total: number; users: UserEntity[] }> {
    return this.searchReading(orgId, query, this.entityReading());
  }

  /** A page of users as SCIM presents them (`toScimUser`): only the columns it reads. */
  searchPresented(orgId: string, query: ListQuery): Promise<{ total: number; users: PresentedUser[]; nextCursor?: string }> {
    return this.searchReading(orgId, query, this.presentedReading());
  }

  private async searchReading<T>(orgId: string, query: ListQuery, reading: Reading<T>): Promise<{ total: number; users: T[]; nextCursor?: string }> {
    try {
      return await this.searchWith(orgId, query, reading);
    } catch (error) {
      throw error instanceof ReadTooCostly ? tooCostly(error.limitMs) : error;
    }
  }

  private async searchWith<T>(orgId: string, query: ListQuery, reading: Reading<T>): Promise<{ total: number; users: T[]; nextCursor?: string }> {
    let where = `u.${USER_COLUMNS.orgId} = :orgId AND u.${USER_COLUMNS.type} = 'human'`;
    let named: Record<string, unknown> = { orgId };
    // A filter that may scan the organization runs bounded in time, off the request thread on SQLite.
    let reads: Statements = statementsOf(this.dataSource);
    if (query.filter) {
      const compiled = compileFilter(query.filter, this.dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql');
      where += ` AND ${compiled.sql}`;
      named = { ...named, ...compiled.params };
      if (!servedByIndex(query.filter, INDEXED_USER_ATTRIBUTES)) reads = this.boundedReads;
    }
    if (query.cursor) return this.cursorPage(orgId, where, named, query, reads, reading);
    const users = query.count === 0 ? [] : await this.page(orgId, where, named, query, reads, reading);
    // The total needs its own query only when this page does not reveal it (a full page, or past the end);
    // without a filter it is the organization's kept count rather than a walk over all its users.
    const known = users.length < query.count && (users.length > 0 || query.startIndex === 1);
    if (known) return { total: query.startIndex - 1 + users.length, users };
    return { total: query.filter ? await countUsersWhere(reads, where, named) : await humanCount(this.dataSource.manager, orgId), users };
  }

  /**
   * A page by cursor (RFC 9865): the rows after the cursor's position in the page order (keyset), one more than
   * asked to learn whether a next page exists. The total is the filter's count (the organization's kept count
   * without a filter), as for a full page by startIndex.
   */
  private async cursorPage<T>(orgId: string, where: string, named: Record<string, unknown>, query: ListQuery, reads: Statements, reading: Reading<T>) {
    const property = query.sort?.property ?? 'createdAt';
    const descending = query.sort?.descending ?? false;
    const key = sortColumn(property);
    let pageWhere = where;
    let pageParams = named;
    const after = query.cursor?.after;
    if (after) {
      const keyset = keysetAfter(
        { column: `u.${key.column}`, idColumn: `u.${USER_COLUMNS.id}`, numeric: key.numeric, nullsAfter: key.nullable ? true : undefined },
        descending,
        after,
      );
      pageWhere += ` AND ${keyset.sql}`;
      pageParams = { ...named, ...keyset.params };
    }
    const rows =
      query.count === 0
        ? []
        : await humanUserPage(
            reads,
            { where: pageWhere, params: pageParams, order: orderBy(query) },
            query.count + 1,
            0,
            `${reading.select}, u.${key.column} AS ${CURSOR_KEY}`,
            after !== undefined,
          );
    const more = rows.length > query.count;
    const page = more ? rows.slice(0, query.count) : rows;
    const last = page.at(-1);
    const nextCursor =
      more && last ? encodeCursor(property, descending, { value: cursorValue(last[CURSOR_KEY], key.numeric), id: String(last[USER_COLUMNS.id]) }) : undefined;
    // A first page that holds every match (and was asked for rows: count=0 reads none) reveals the total.
    const total =
      !after && !more && query.count > 0
        ? page.length
        : query.filter
          ? await countUsersWhere(reads, where, named)
          : await humanCount(this.dataSource.manager, orgId);
    return { total, users: page.map((row) => this.hydrate(row, reading)), nextCursor };
  }

  private async page<T>(orgId: string, where: string, params: Record<string, unknown>, query: ListQuery, reads: Statements, reading: Reading<T>): Promise<T[]> {
    // Unfiltered pages in an order without NULLs may come from sort-key checkpoints; the answer is the
    // page OFFSET would give at that moment either way (src/users/user-order-checkpoints.ts).
    const column = query.filter ? undefined : checkpointColumn(query);
    const offset = query.startIndex - 1;
    const rows =
      (column && (await pageFromCheckpoints(this.dataSource, orgId, column, query.sort?.descending ?? false, offset, query.count, reading.select))) ||
      (await humanUserPage(reads, { where, params, order: orderBy(query) }, query.count, offset, reading.select));
    return rows.map((row) => this.hydrate(row, reading));
  }

  /** Every column, into the entity (`u.*`: the statements stay those every other read of a user shares). */
  private entityReading(): Reading<UserEntity> {
    return (this.entities ??= { select: 'u.*', columns: this.dataSource.getMetadata(UserEntity).columns, create: () => new UserEntity() });
  }

  /** The columns `toScimUser` reads, looked up once in TypeORM's metadata. */
  private presentedReading(): Reading<PresentedUser> {
    if (!this.presented) {
      const wanted = new Set<string>(PRESENTED_PROPERTIES);
      const columns = this.dataSource.getMetadata(UserEntity).columns.filter((c) => wanted.has(c.propertyName));
      this.presented = { select: columns.map((c) => `u.${c.databaseName}`).join(', '), columns, create: () => ({}) as PresentedUser };
    }
    return this.presented;
  }

  /** A raw row as TypeORM would hydrate it: driver type conversions and column transformers. */
  private hydrate<T>(row: Record<string, unknown>, reading: Reading<T>): T {
    const user = reading.create();
    for (const column of reading.columns)
      (user as Record<string, unknown>)[column.propertyName] = this.dataSource.driver.prepareHydratedValue(row[column.databaseName], column);
    return user;
  }
}

/** The sort column when checkpoints can serve its order: userName or id (no NULLs, never a Date to round-trip). */
function checkpointColumn(query: ListQuery): CheckpointColumn | undefined {
  const column = SORT_COLUMNS.get(query.sort?.property ?? 'createdAt')?.column;
  return column === USER_COLUMNS.userNameLower || column === USER_COLUMNS.id ? column : undefined;
}

function sortColumn(property: string) {
  const key = SORT_COLUMNS.get(property);
  if (!key) throw new Error(`no sort column for ${property}`);
  return key;
}

/** A sort value as the cursor keeps it: timestamps as numbers (the MariaDB driver may give a BIGINT as a string). */
function cursorValue(raw: unknown, numeric: boolean): string | number | null {
  if (raw === null || raw === undefined) return null;
  return numeric ? Number(raw) : String(raw);
}

function orderBy(query: ListQuery): string {
  const direction = query.sort?.descending ? 'DESC' : 'ASC';
  const key = sortColumn(query.sort?.property ?? 'createdAt');
  // Unassigned values sort last whatever the order (as scimmy and most providers do); both
  // databases would otherwise put NULL first in ascending order.
  const nullsLast = key.nullable ? `CASE WHEN u.${key.column} IS NULL THEN 1 ELSE 0 END ASC, ` : '';
  return `${nullsLast}u.${key.column} ${direction}, u.${USER_COLUMNS.id} ${direction}`;
}
