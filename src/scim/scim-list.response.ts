import { LIST_RESPONSE_SCHEMA } from './scim.constants.js';

/** RFC 7644 §3.4.2: a ListResponse; itemsPerPage is the number of resources returned in this page. */
export function listResponse(resources: object[], totalResults: number, startIndex = 1) {
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults, itemsPerPage: resources.length, startIndex, Resources: resources };
}

/**
 * RFC 9865 §2.2: a page by cursor has no startIndex; `nextCursor` is on every page but the last (its absence is
 * how a client knows it has them all). No `previousCursor`: it is optional, and going back would need a second
 * query in the reverse order.
 */
export function cursorListResponse(resources: object[], totalResults: number, nextCursor: string | undefined) {
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults, itemsPerPage: resources.length, ...(nextCursor ? { nextCursor } : {}), Resources: resources };
}
