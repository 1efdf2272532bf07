import {
  ENTERPRISE_SCHEMA,
  GROUP_SCHEMA,
  MAX_ATTRIBUTE_VALUES,
  MAX_BULK_OPERATIONS,
  MAX_PATCH_OPERATIONS,
  MAX_BULK_PAYLOAD_BYTES,
  MAX_PAGE_SIZE,
  RESOURCE_TYPE_SCHEMA,
  SCHEMA_SCHEMA,
  SPC_SCHEMA,
  USER_SCHEMA,
} from '../scim.constants.js';
import { GROUP_SCHEMA_DEFINITION } from '../schema/group.schema.js';
import { SCHEMAS } from '../schema/user.schema.js';

/** ServiceProviderConfig (RFC 7643 §5) with the values of docs/product-rules.md, "SCIM". */
export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SPC_SCHEMA],
    documentationUri: 'https://datatracker.ietf.org/doc/html/rfc7644',
    // RFC 7643 §5 defines only `supported`; the limits are advertised beside it, named like bulk's (clients ignore unknown members).
    patch: { supported: true, maxOperations: MAX_PATCH_OPERATIONS, maxValuesPerAttribute: MAX_ATTRIBUTE_VALUES },
    bulk: { supported: true, maxOperations: MAX_BULK_OPERATIONS, maxPayloadSize: MAX_BULK_PAYLOAD_BYTES },
    filter: { supported: true, maxResults: MAX_PAGE_SIZE },
    changePassword: { supported: true },
    sort: { supported: true },
    etag: { supported: false },
    // RFC 9865 §4: both methods, index the default (what a request without `cursor` gets); no cursorTimeout, as
    // cursors do not expire (one names a position in the order, not a kept result).
    pagination: { cursor: true, index: true, defaultPaginationMethod: 'index', defaultPageSize: MAX_PAGE_SIZE, maxPageSize: MAX_PAGE_SIZE },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'Authentication with a personal access token or an OAuth 2.0 access token of this instance',
        specUri: 'https://www.rfc-editor.org/info/rfc6750',
        primary: false,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

/** Schema resources (RFC 7643 §7): User, its enterprise extension, and Group. */
export function schemaResources(baseUrl: string) {
  return [...SCHEMAS, GROUP_SCHEMA_DEFINITION].map((s) => ({
    schemas: [SCHEMA_SCHEMA],
    id: s.id,
    name: s.name,
    description: s.description,
    attributes: s.attributes,
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${s.id}` },
  }));
}

/** The resource types (RFC 7643 §6): User and Group. */
export function resourceTypes(baseUrl: string) {
  return [
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      description: 'User Account',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
    },
    {
      schemas: [RESOURCE_TYPE_SCHEMA],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      description: 'Group',
      schema: GROUP_SCHEMA,
      schemaExtensions: [],
      meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
    },
  ];
}
