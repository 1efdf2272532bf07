import { assertFilterCost } from './filter-cost.js';
import { MAX_FILTER_LENGTH, parseFilter } from '../filter/index.js';
import type { FilterNode } from '../filter/index.js';
import { ScimError } from '../errors/scim-error.js';
import { MAX_PAGE_SIZE, SEARCH_REQUEST_SCHEMA, USER_SCHEMA } from '../scim.constants.js';
import { parseAttributeList } from './scim-projection.js';
import type { AttributeSelection } from './scim-projection.js';
import { decodeCursor } from './scim-cursor.js';
import type { CursorPaging } from './scim-cursor.js';

/** Sortable User attributes (docs/product-rules.md, "SCIM") → entity property of `UserEntity` (a Map: `sortBy=constructor` is no member). */
const SORT_PROPERTIES = new Map<string, string>([
  ['meta.created', 'createdAt'],
  ['meta.lastmodified', 'changedAt'],
  ['id', 'id'],
  ['username', 'userNameLower'],
  ['name.familyname', 'familyName'],
  ['name.givenname', 'givenName'],
  ['emails', 'emailLower'],
  ['emails.value', 'emailLower'],
]);

/** What a list query of one resource type may name: its core schema (a prefix of attribute paths) and its sort keys. */
export interface ListResource {
  schema: string;
  /** Sortable attribute (lower case) → the key the resource's query sorts by. */
  sortable: ReadonlyMap<string, string>;
  /** The key of the order without `sortBy`. */
  defaultSort: string;
}

export const USER_LIST: ListResource = { schema: USER_SCHEMA, sortable: SORT_PROPERTIES, defaultSort: 'createdAt' };

export interface ListQuery {
  filter: FilterNode | undefined;
  sort: { property: string; descending: boolean } | undefined;
  /** 1-based (RFC 7644 §3.4.2.4). */
  startIndex: number;
  count: number;
  selection: AttributeSelection;
  /** Paged by cursor (RFC 9865) when the request has `cursor`, even empty; otherwise by `startIndex`. */
  cursor: CursorPaging | undefined;
}

type Raw = Record<string, unknown>;

/** Query parameters of GET /Users (RFC 7644 §3.4.2), names matched ignoring case. */
export function listQueryFromParams(params: Raw, resource: ListResource = USER_LIST): ListQuery {
  const get = (name: string) => {
    const key = Object.keys(params).find((k) => k.toLowerCase() === name.toLowerCase());
    const value = key === undefined ? undefined : params[key];
    if (Array.isArray(value)) throw ScimError.badRequest('invalidValue', `"${name}" was given more than once`);
    return value === undefined ? undefined : String(value);
  };
  return buildQuery(resource, {
    filter: get('filter'),
    sortBy: get('sortBy'),
    sortOrder: get('sortOrder'),
    startIndex: get('startIndex'),
    count: get('count'),
    cursor: get('cursor'),
    attributes: get('attributes'),
    excludedAttributes: get('excludedAttributes'),
  });
}

/** Only `attributes` and `excludedAttributes` (any case) of the query: what GET of one resource takes. */
export function selectionParams(params: Raw): Raw {
  return Object.fromEntries(Object.entries(params).filter(([k]) => ['attributes', 'excludedattributes'].includes(k.toLowerCase())));
}

/** Body of POST /Users/.search (RFC 7644 §3.4.3): a SearchRequest with the same parameters. */
export function listQueryFromSearch(body: unknown, resource: ListResource = USER_LIST): ListQuery {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ScimError.badRequest('invalidSyntax', 'the body must be a SearchRequest object');
  const b = Object.fromEntries(Object.entries(body).map(([k, v]) => [k.toLowerCase(), v]));
  const schemas = b.schemas;
  if (!Array.isArray(schemas) || !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === SEARCH_REQUEST_SCHEMA.toLowerCase())) {
    throw ScimError.badRequest('invalidSyntax', `"schemas" must be ["${SEARCH_REQUEST_SCHEMA}"]`);
  }
  const list = (name: string) => {
    const value = b[name.toLowerCase()];
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(',');
    if (typeof value === 'string') return value;
    throw ScimError.badRequest('invalidValue', `"${name}" must be an array of attribute names`);
  };
  const scalar = (name: string) => {
    const value = b[name.toLowerCase()];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    // A JSON integer too large for its decimal spelling (1e30 prints as "1e+30") is still an integer.
    if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value).toString() : String(value);
    throw ScimError.badRequest('invalidValue', `"${name}" must be a string or number`);
  };
  return buildQuery(resource, {
    filter: scalar('filter'),
    sortBy: scalar('sortBy'),
    sortOrder: scalar('sortOrder'),
    startIndex: scalar('startIndex'),
    count: scalar('count'),
    cursor: scalar('cursor'),
    attributes: list('attributes'),
    excludedAttributes: list('excludedAttributes'),
  });
}

function buildQuery(resource: ListResource, raw: Record<string, string | undefined>): ListQuery {
  let filter: FilterNode | undefined;
  if (raw.filter !== undefined && raw.filter.trim() !== '') {
    if (raw.filter.length > MAX_FILTER_LENGTH) {
      throw ScimError.badRequest('invalidFilter', `the filter is ${raw.filter.length} characters long; at most ${MAX_FILTER_LENGTH} are allowed`);
    }
    // Strict RFC 7644 §3.4.2.2 grammar: a string value is quoted. An unquoted word (`userName sw O`, as
    // Microsoft's reference Postman collection sends) is invalidFilter rather than a guess.
    filter = parseFilter(raw.filter);
    assertFilterCost(filter);
  }
  const sort = sortOf(resource, raw.sortBy, raw.sortOrder);
  return {
    filter,
    sort,
    // RFC 7644 §3.4.2.4: "A value less than 1 SHALL be interpreted as 1."
    startIndex: Math.max(1, integer(raw.startIndex, 'startIndex') ?? 1),
    // "A negative value SHALL be interpreted as "0""; above the maximum, the maximum (docs/product-rules.md, "SCIM").
    count: Math.min(MAX_PAGE_SIZE, Math.max(0, integer(raw.count, 'count') ?? MAX_PAGE_SIZE)),
    selection: parseAttributeList(raw.attributes, raw.excludedAttributes),
    cursor: cursorOf(resource, raw, sort),
  };
}

/** RFC 9865 §2: `cursor=` (empty) asks the first page, a cursor the page after it; startIndex belongs to the other method. */
function cursorOf(resource: ListResource, raw: Record<string, string | undefined>, sort: ListQuery['sort']): CursorPaging | undefined {
  if (raw.cursor === undefined) return undefined;
  if (raw.startIndex !== undefined && raw.startIndex.trim() !== '') {
    throw ScimError.badRequest('invalidValue', '"cursor" and "startIndex" are two ways of paging: give one of them');
  }
  if (raw.cursor === '') return {};
  return { after: decodeCursor(raw.cursor, sort?.property ?? resource.defaultSort, sort?.descending ?? false) };
}

function sortOf(resource: ListResource, sortBy: string | undefined, sortOrder: string | undefined): ListQuery['sort'] {
  let descending = false;
  if (sortOrder !== undefined && sortOrder !== '') {
    const order = sortOrder.toLowerCase();
    if (order !== 'ascending' && order !== 'descending') throw ScimError.badRequest('invalidValue', '"sortOrder" must be "ascending" or "descending"');
    descending = order === 'descending';
  }
  if (sortBy === undefined || sortBy === '') return undefined;
  const lower = sortBy.toLowerCase();
  const path = lower.startsWith(`${resource.schema.toLowerCase()}:`) ? lower.slice(resource.schema.length + 1) : lower;
  const property = resource.sortable.get(path);
  if (!property) throw ScimError.badRequest('invalidValue', `sorting by "${sortBy}" is not supported; sortable: ${[...resource.sortable.keys()].join(', ')}`);
  return { property, descending };
}

/**
 * A decimal integer, saturated to ±Number.MAX_SAFE_INTEGER: past that a JS number is no longer exact,
 * and a start index that large is past the end of any list anyway (an empty page).
 */
function integer(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw ScimError.badRequest('invalidValue', `"${name}" must be an integer`);
  const exact = BigInt(value.trim());
  const limit = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(exact > limit ? limit : exact < -limit ? -limit : exact);
}
