import { LIST_RESPONSE_SCHEMA } from './scim.constants.js';

/** RFC 7644 §3.4.2: a ListResponse; itemsPerPage is the number of resources returned in this page. */
export function listResponse(resources: object[], totalResults: number, startIndex = 1) {
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults, itemsPerPage: resources.length, startIndex, Resources: resources };
}
