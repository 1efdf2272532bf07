import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { BoundedReads, ReadTooCostly } from '../../common/database/bounded-reads.js';
import type { JsonObject } from '../../common/database/columns.js';
import { statementsOf } from '../../common/database/statements.js';
import type { GroupChange } from '../../users/groups/group-edit.js';
import { GROUP_COLUMNS, countGroups, findGroup, groupKeysetPage, membersOf, searchGroups } from '../../users/groups/group.queries.js';
import type { GroupRow, MemberRow } from '../../users/groups/group.queries.js';
import { GroupsService } from '../../users/groups/groups.service.js';
import { ScimError } from '../errors/scim-error.js';
import { ScimUrls } from '../http/scim-urls.js';
import { servedByIndex, tooCostly } from '../query/filter-cost.js';
import { encodeCursor } from '../query/scim-cursor.js';
import { keysetAfter } from '../query/scim-keyset.js';
import type { Statements } from '../../common/database/statements.js';
import type { ListQuery, ListResource } from '../query/scim-list-query.js';
import { project, selectsAttribute } from '../query/scim-projection.js';
import type { AttributeSelection } from '../query/scim-projection.js';
import { GROUP_SCHEMA } from '../scim.constants.js';
import { compileGroupFilter } from './scim-group-filter.sql.js';
import { toScimGroup } from './scim-group.document.js';
import type { ValidGroup } from './scim-group.validator.js';

/** Sortable Group attributes (lower case) → columns; the default order is by creation. */
export const GROUP_LIST: ListResource = {
  schema: GROUP_SCHEMA,
  sortable: new Map([
    ['displayname', GROUP_COLUMNS.displayNameKey],
    ['externalid', GROUP_COLUMNS.externalId],
    ['id', GROUP_COLUMNS.id],
    ['meta.created', GROUP_COLUMNS.createdAt],
    ['meta.lastmodified', GROUP_COLUMNS.changedAt],
  ]),
  defaultSort: GROUP_COLUMNS.createdAt,
};

/** Timestamps are numbers (epoch milliseconds); externalId is the one sort column with NULLs. */
const NUMERIC_SORT = new Set<string>([GROUP_COLUMNS.createdAt, GROUP_COLUMNS.changedAt]);
const NULLABLE_SORT = new Set<string>([GROUP_COLUMNS.externalId]);

/** Attributes whose `eq` an index serves (filter-cost.ts). */
const INDEXED_GROUP_ATTRIBUTES = new Set(['id', 'externalid', 'displayname']);

/** The SCIM Groups resource over the groups domain: reads through its queries, writes through GroupsService. */
@Injectable()
export class ScimGroupsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly groups: GroupsService,
    private readonly urls: ScimUrls,
    private readonly boundedReads: BoundedReads,
  ) {}

  async list(orgId: string, query: ListQuery): Promise<{ total: number; resources: JsonObject[]; nextCursor?: string }> {
    const dialect = this.dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
    // A filter that may scan the organization runs bounded in time, off the request thread on SQLite.
    const bounded = query.filter !== undefined && !servedByIndex(query.filter, INDEXED_GROUP_ATTRIBUTES);
    const reads = bounded ? this.boundedReads : statementsOf(this.dataSource);
    const where = query.filter ? compileGroupFilter(query.filter, dialect) : undefined;
    if (query.cursor) {
      return this.cursorPage(reads, orgId, query, where).catch((error: unknown) => {
        throw error instanceof ReadTooCostly ? tooCostly(error.limitMs) : error;
      });
    }
    const found = await searchGroups(reads, orgId, {
      where,
      orderBy: query.sort?.property ?? GROUP_COLUMNS.createdAt,
      descending: query.sort?.descending ?? false,
      startIndex: query.startIndex,
      count: query.count,
    }).catch((error: unknown) => {
      throw error instanceof ReadTooCostly ? tooCostly(error.limitMs) : error;
    });
    const { total, groups } = found;
    return { total, resources: await this.present(orgId, groups, query.selection) };
  }

  /**
   * A page by cursor (RFC 9865): the groups after the cursor's position (keyset), one more than asked to learn
   * whether a next page exists; the total is the filter's count, as for a full page by startIndex.
   */
  private async cursorPage(reads: Statements, orgId: string, query: ListQuery, where: { sql: string; params: Record<string, unknown> } | undefined) {
    const orderBy = query.sort?.property ?? GROUP_COLUMNS.createdAt;
    const descending = query.sort?.descending ?? false;
    const numeric = NUMERIC_SORT.has(orderBy);
    const position = query.cursor?.after;
    // Both databases sort NULL before every value: after them ascending, last descending.
    const key = { column: orderBy, idColumn: GROUP_COLUMNS.id, numeric, nullsAfter: NULLABLE_SORT.has(orderBy) ? descending : undefined };
    const after = position ? keysetAfter(key, descending, position) : undefined;
    const rows = await groupKeysetPage(reads, orgId, { where, orderBy, descending, after, limit: query.count === 0 ? 0 : query.count + 1 });
    const more = rows.length > query.count;
    const page = more ? rows.slice(0, query.count) : rows;
    const last = page.at(-1);
    const value = last?.sortValue == null ? null : numeric ? Number(last.sortValue) : String(last.sortValue);
    const nextCursor = more && last ? encodeCursor(orderBy, descending, { value, id: last.group.id }) : undefined;
    const total = !position && !more && query.count > 0 ? page.length : await countGroups(reads, orgId, where);
    return {
      total,
      resources: await this.present(
        orgId,
        page.map((r) => r.group),
        query.selection,
      ),
      nextCursor,
    };
  }

  async get(orgId: string, id: string, selection: AttributeSelection): Promise<JsonObject> {
    const [resource] = await this.present(orgId, [await this.find(orgId, id)], selection);
    return resource;
  }

  async create(editorUserId: string, orgId: string, group: ValidGroup): Promise<JsonObject> {
    const created = await this.groups.create(editorUserId, orgId, group, group.memberIds);
    return this.get(orgId, created.id, NO_SELECTION);
  }

  /** PUT: every attribute as sent, members included (none when absent), in one transaction. */
  async replace(editorUserId: string, orgId: string, id: string, group: ValidGroup): Promise<JsonObject> {
    await this.edit(editorUserId, orgId, id, [
      { kind: 'set', displayName: group.displayName, externalId: group.externalId },
      { kind: 'replace', userIds: group.memberIds },
    ]);
    return this.get(orgId, id, NO_SELECTION);
  }

  async edit(editorUserId: string, orgId: string, id: string, changes: readonly GroupChange[]): Promise<void> {
    await this.groups.edit(editorUserId, orgId, id, changes);
  }

  async remove(editorUserId: string, orgId: string, id: string): Promise<void> {
    await this.groups.remove(editorUserId, orgId, id);
  }

  private async find(orgId: string, id: string): Promise<GroupRow> {
    const group = await findGroup(this.dataSource.manager, orgId, id);
    if (!group) throw ScimError.notFound(`group ${id} not found`);
    return group;
  }

  private async present(orgId: string, groups: GroupRow[], selection: AttributeSelection): Promise<JsonObject[]> {
    const members = selectsAttribute(selection, 'members')
      ? byGroup(
          await membersOf(
            this.dataSource.manager,
            groups.map((g) => g.id),
          ),
        )
      : undefined;
    const base = this.urls.base(orgId);
    return groups.map((g) => project(toScimGroup(g, members ? (members.get(g.id) ?? []) : undefined, base), selection));
  }
}

const NO_SELECTION: AttributeSelection = { attributes: undefined, excluded: [] };

function byGroup(rows: MemberRow[]): Map<string, MemberRow[]> {
  const map = new Map<string, MemberRow[]>();
  for (const row of rows) {
    const list = map.get(row.groupId);
    if (list) list.push(row);
    else map.set(row.groupId, [row]);
  }
  return map;
}
