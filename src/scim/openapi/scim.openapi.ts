import type { OperationObject, ParameterObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { Role } from '../../common/auth/roles.js';
import { ACCESS_EXTENSION } from '../../common/http/openapi/access-extension.js';
import type { AccessExtension } from '../../common/http/openapi/access-extension.js';
import type { OpenApiSurface } from '../../common/http/openapi/openapi-document.js';
import { requiredRoleLine } from '../../common/http/openapi/openapi-document.js';
import {
  BULK_REQUEST_SCHEMA,
  ENTERPRISE_SCHEMA,
  ERROR_DETAIL_SCHEMA,
  ERROR_SCHEMA,
  GROUP_SCHEMA,
  LIST_RESPONSE_SCHEMA,
  MAX_BULK_OPERATIONS,
  MAX_BULK_PAYLOAD_BYTES,
  MAX_PAGE_SIZE,
  PATCH_OP_SCHEMA,
  SCIM_MEDIA_TYPE,
  SEARCH_REQUEST_SCHEMA,
  USER_SCHEMA,
} from '../scim.constants.js';

/**
 * SCIM 2.0 (RFC 7644) for the OpenAPI document. The controllers take raw bodies that the SCIM
 * validators check (src/scim/schema), so @nestjs/swagger cannot describe them (they are excluded with
 * @ApiExcludeController); this is their description, path by path. test/platform/openapi.test.ts
 * compares these paths and methods with the routes the SCIM controllers declare. The authoritative
 * attribute schemas are served by the service itself at `/Schemas` (RFC 7643 §7).
 */
const BASE = '/scim/v2/{orgId}';
const TAG = 'scim';
const MANAGER: AccessExtension = { role: Role.OrgUserManager, organizationParameter: 'orgId' };

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const str = (description: string, extra: SchemaObject = {}): SchemaObject => ({ type: 'string', description, ...extra });
const uris = (example: string): SchemaObject => ({ type: 'array', items: { type: 'string' }, example: [example] });

const MULTI_VALUED: SchemaObject = {
  type: 'object',
  properties: { value: { type: 'string' }, type: { type: 'string' }, primary: { type: 'boolean' }, display: { type: 'string' } },
};

const SCHEMAS: Record<string, SchemaObject> = {
  ScimUser: {
    type: 'object',
    description: `RFC 7643 §4.1 User, with the enterprise extension (\`${ENTERPRISE_SCHEMA}\`); the full attribute list is at /Schemas`,
    required: ['userName'],
    properties: {
      schemas: uris(USER_SCHEMA),
      id: str('assigned by the service', { readOnly: true }),
      externalId: str('the id the provisioning client knows the user by'),
      userName: str('unique in the organization (case-insensitively)'),
      name: { type: 'object', properties: { givenName: { type: 'string' }, familyName: { type: 'string' }, formatted: { type: 'string' } } },
      displayName: { type: 'string' },
      preferredLanguage: { type: 'string' },
      locale: { type: 'string' },
      active: { type: 'boolean' },
      password: str('never returned', { writeOnly: true }),
      emails: { type: 'array', items: MULTI_VALUED },
      phoneNumbers: { type: 'array', items: MULTI_VALUED },
      groups: { type: 'array', items: MULTI_VALUED, readOnly: true },
      [ENTERPRISE_SCHEMA]: { type: 'object', additionalProperties: true },
      meta: ref('ScimMeta'),
    },
    additionalProperties: true,
  },
  ScimGroup: {
    type: 'object',
    description: 'RFC 7643 §4.2 Group',
    required: ['displayName'],
    properties: {
      schemas: uris(GROUP_SCHEMA),
      id: str('assigned by the service', { readOnly: true }),
      externalId: { type: 'string' },
      displayName: str('unique in the organization (case-insensitively)'),
      members: {
        type: 'array',
        items: {
          type: 'object',
          required: ['value'],
          properties: { value: str('a user id of the organization'), display: { type: 'string', readOnly: true }, $ref: { type: 'string', readOnly: true } },
        },
      },
      meta: ref('ScimMeta'),
    },
    additionalProperties: true,
  },
  ScimMeta: {
    type: 'object',
    readOnly: true,
    properties: {
      resourceType: { type: 'string' },
      created: { type: 'string', format: 'date-time' },
      lastModified: { type: 'string', format: 'date-time' },
      location: { type: 'string', format: 'uri' },
    },
  },
  ScimListResponse: {
    type: 'object',
    description: 'RFC 7644 §3.4.2',
    required: ['schemas', 'totalResults', 'Resources'],
    properties: {
      schemas: uris(LIST_RESPONSE_SCHEMA),
      totalResults: { type: 'integer' },
      itemsPerPage: { type: 'integer' },
      startIndex: { type: 'integer', description: 'pages by index only' },
      nextCursor: { type: 'string', description: 'RFC 9865: on every page by cursor but the last' },
      Resources: { type: 'array', items: { type: 'object', additionalProperties: true } },
    },
  },
  ScimSearchRequest: {
    type: 'object',
    description: 'RFC 7644 §3.4.3',
    properties: {
      schemas: uris(SEARCH_REQUEST_SCHEMA),
      filter: { type: 'string' },
      sortBy: { type: 'string' },
      sortOrder: { type: 'string', enum: ['ascending', 'descending'] },
      startIndex: { type: 'integer', minimum: 1 },
      cursor: { type: 'string', description: 'RFC 9865: empty for the first page, then the last nextCursor' },
      count: { type: 'integer', minimum: 0, maximum: MAX_PAGE_SIZE },
      attributes: { type: 'array', items: { type: 'string' } },
      excludedAttributes: { type: 'array', items: { type: 'string' } },
    },
  },
  ScimPatchOp: {
    type: 'object',
    description: 'RFC 7644 §3.5.2',
    required: ['schemas', 'Operations'],
    properties: {
      schemas: uris(PATCH_OP_SCHEMA),
      Operations: {
        type: 'array',
        items: {
          type: 'object',
          required: ['op'],
          properties: { op: { type: 'string', description: 'add, replace or remove (any case)' }, path: { type: 'string' }, value: {} },
        },
      },
    },
  },
  ScimBulkRequest: {
    type: 'object',
    description: `RFC 7644 §3.7; at most ${MAX_BULK_OPERATIONS} operations and ${MAX_BULK_PAYLOAD_BYTES} bytes`,
    required: ['schemas', 'Operations'],
    properties: {
      schemas: uris(BULK_REQUEST_SCHEMA),
      failOnErrors: { type: 'integer', minimum: 1 },
      Operations: {
        type: 'array',
        maxItems: MAX_BULK_OPERATIONS,
        items: {
          type: 'object',
          required: ['method', 'path'],
          properties: {
            method: { type: 'string', enum: ['POST', 'PUT', 'PATCH', 'DELETE'] },
            bulkId: { type: 'string' },
            path: { type: 'string' },
            data: { type: 'object', additionalProperties: true },
          },
        },
      },
    },
  },
  ScimBulkResponse: {
    type: 'object',
    description: 'RFC 7644 §3.7.3: one result per operation, each with its own status',
    required: ['schemas', 'Operations'],
    properties: {
      schemas: { type: 'array', items: { type: 'string' } },
      Operations: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            method: { type: 'string' },
            bulkId: { type: 'string' },
            location: { type: 'string' },
            status: { type: 'string' },
            response: { type: 'object', additionalProperties: true },
          },
        },
      },
    },
  },
  ScimError: {
    type: 'object',
    description: `RFC 7644 §3.12, with the vendor detail \`${ERROR_DETAIL_SCHEMA}\` (a stable error id and the message)`,
    required: ['schemas', 'status', 'detail'],
    properties: {
      schemas: { type: 'array', items: { type: 'string' }, example: [ERROR_SCHEMA, ERROR_DETAIL_SCHEMA] },
      status: str('the HTTP status, as a string', { example: '400' }),
      scimType: str('RFC 7644 Table 9', { example: 'invalidFilter' }),
      detail: { type: 'string' },
      [ERROR_DETAIL_SCHEMA]: { type: 'object', required: ['id', 'message'], properties: { id: { type: 'string' }, message: { type: 'string' } } },
    },
  },
  ScimDiscoveryResource: {
    type: 'object',
    description: 'RFC 7643 §5 ServiceProviderConfig, §6 ResourceType, §7 Schema',
    required: ['schemas'],
    properties: { schemas: { type: 'array', items: { type: 'string' } } },
    additionalProperties: true,
  },
};

const ORG_PARAMETER: ParameterObject = {
  name: 'orgId',
  in: 'path',
  required: true,
  description: 'the organization (the SCIM tenant)',
  schema: { type: 'string' },
};
const pathParameter = (name: string, description: string): ParameterObject => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });
const queryParameter = (name: string, description: string, schema: SchemaObject = { type: 'string' }): ParameterObject => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});

const SELECTION = [
  queryParameter('attributes', 'comma-separated attributes to return (RFC 7644 §3.9)'),
  queryParameter('excludedAttributes', 'comma-separated attributes to leave out'),
];
const LIST = [
  queryParameter('filter', 'RFC 7644 §3.4.2.2', { type: 'string', example: 'userName eq "alice"' }),
  queryParameter('sortBy', 'attribute to sort by'),
  queryParameter('sortOrder', '', { type: 'string', enum: ['ascending', 'descending'] }),
  queryParameter('startIndex', '1-based', { type: 'integer', minimum: 1 }),
  queryParameter('cursor', 'RFC 9865: empty for the first page, then the last nextCursor (instead of startIndex)', { type: 'string' }),
  queryParameter('count', `page size, at most ${MAX_PAGE_SIZE}`, { type: 'integer', minimum: 0, maximum: MAX_PAGE_SIZE }),
  ...SELECTION,
];

function scim(description: string, schema?: string): ResponseObject {
  return schema ? { description, content: { [SCIM_MEDIA_TYPE]: { schema: ref(schema) } } } : { description };
}
const error = (description: string) => scim(description, 'ScimError');

function body(schema: string): OperationObject['requestBody'] {
  return { required: true, content: { [SCIM_MEDIA_TYPE]: { schema: ref(schema) }, 'application/json': { schema: ref(schema) } } };
}

/** An operation under the bearer token and ORG_USER_MANAGER, with the guard's answers. */
function managed(
  summary: string,
  operationId: string,
  rest: Omit<OperationObject, 'responses' | 'summary' | 'operationId'>,
  responses: OperationObject['responses'],
): OperationObject {
  const { description, ...others } = rest;
  return <OperationObject>{
    tags: [TAG],
    summary,
    operationId,
    description: [requiredRoleLine(MANAGER as Exclude<AccessExtension, { public: true }>), description].filter(Boolean).join('\n\n'),
    security: [{ bearer: [] }],
    [ACCESS_EXTENSION]: MANAGER,
    ...others,
    responses: {
      ...responses,
      '401': error('missing, invalid or expired bearer token'),
      '403': error(`the caller lacks ${Role.OrgUserManager} on the organization (or, acting on a user, a role that user holds)`),
      '404': error(responses['404'] ? String((responses['404'] as ResponseObject).description) : "no organization {orgId} within the caller's reach"),
    },
  };
}

function discovery(
  summary: string,
  operationId: string,
  schema: string,
  parameters: ParameterObject[] = [],
  notFound = 'no organization {orgId}',
): OperationObject {
  return {
    tags: [TAG],
    summary,
    operationId,
    description: 'RFC 7644 §4: readable without a token, so a client can learn the configuration before it is set up.',
    security: [],
    [ACCESS_EXTENSION]: { public: true },
    parameters,
    responses: { '200': scim('the document', schema), '404': error(notFound) },
  } as OperationObject;
}

/** The collection and item paths of one resource type (Users or Groups). */
function resource(name: 'Users' | 'Groups', schema: 'ScimUser' | 'ScimGroup') {
  const one = name.slice(0, -1);
  const idParameter = pathParameter('id', `the ${one.toLowerCase()}'s id`);
  const notFound = `no organization {orgId} within the caller's reach, or no such ${one.toLowerCase()} in it`;
  const invalid = error('invalid body, filter or attribute (scimType says which: invalidSyntax, invalidFilter, invalidValue, mutability, …)');
  return {
    [`${BASE}/${name}`]: {
      parameters: [ORG_PARAMETER],
      get: managed(
        `List or filter ${name}`,
        `scimList${name}`,
        { parameters: LIST },
        { '200': scim('a page of resources', 'ScimListResponse'), '400': invalid },
      ),
      post: managed(
        `Create a ${one}`,
        `scimCreate${one}`,
        { requestBody: body(schema) },
        {
          '201': {
            ...scim(`the created ${one.toLowerCase()}`, schema),
            headers: { Location: { description: 'the new resource (RFC 7644 §3.3)', schema: { type: 'string', format: 'uri' } } },
          },
          '400': invalid,
          '409': error('scimType uniqueness: the name is taken in the organization'),
        },
      ),
    },
    [`${BASE}/${name}/.search`]: {
      parameters: [ORG_PARAMETER],
      post: managed(
        `Search ${name}`,
        `scimSearch${name}`,
        { description: 'RFC 7644 §3.4.3: the query in a body, out of URLs and logs.', requestBody: body('ScimSearchRequest') },
        {
          '200': scim('a page of resources', 'ScimListResponse'),
          '400': invalid,
        },
      ),
    },
    [`${BASE}/${name}/{id}`]: {
      parameters: [ORG_PARAMETER, idParameter],
      get: managed(
        `Get a ${one}`,
        `scimGet${one}`,
        { parameters: SELECTION },
        { '200': scim(`the ${one.toLowerCase()}`, schema), '400': invalid, '404': { description: notFound } },
      ),
      put: managed(
        `Replace a ${one}`,
        `scimReplace${one}`,
        { requestBody: body(schema) },
        {
          '200': scim(`the ${one.toLowerCase()} as stored`, schema),
          '400': invalid,
          '404': { description: notFound },
          '409': error('scimType uniqueness: the name is taken in the organization'),
        },
      ),
      patch: managed(
        `Patch a ${one}`,
        `scimPatch${one}`,
        { description: 'RFC 7644 §3.5.2; answers 204 without a body.', requestBody: body('ScimPatchOp') },
        {
          '204': { description: 'patched' },
          '400': invalid,
          '404': { description: notFound },
          '409': error('scimType uniqueness: the name is taken in the organization'),
        },
      ),
      delete: managed(`Delete a ${one}`, `scimDelete${one}`, {}, { '204': { description: 'deleted' }, '404': { description: notFound } }),
    },
  };
}

export function scimOpenApi(): OpenApiSurface {
  return {
    tags: [{ name: TAG, description: 'SCIM 2.0 provisioning (RFC 7643, RFC 7644), one tenant per organization; errors are RFC 7644 §3.12 bodies' }],
    schemas: SCHEMAS,
    paths: {
      ...resource('Users', 'ScimUser'),
      ...resource('Groups', 'ScimGroup'),
      [`${BASE}/Bulk`]: {
        parameters: [ORG_PARAMETER],
        post: managed(
          'Bulk operations',
          'scimBulk',
          { description: 'RFC 7644 §3.7: each operation answers with its own status in the 200 response.', requestBody: body('ScimBulkRequest') },
          {
            '200': scim('one result per operation', 'ScimBulkResponse'),
            '400': error('the body is not a BulkRequest'),
            '413': error(`more than ${MAX_BULK_OPERATIONS} operations or ${MAX_BULK_PAYLOAD_BYTES} bytes`),
          },
        ),
      },
      [`${BASE}/ServiceProviderConfig`]: {
        parameters: [ORG_PARAMETER],
        get: discovery('Service provider configuration', 'scimServiceProviderConfig', 'ScimDiscoveryResource'),
      },
      [`${BASE}/Schemas`]: { parameters: [ORG_PARAMETER], get: discovery('List the schemas', 'scimSchemas', 'ScimListResponse') },
      [`${BASE}/Schemas/{id}`]: {
        parameters: [ORG_PARAMETER, pathParameter('id', 'a schema URI')],
        get: discovery('Get a schema', 'scimSchema', 'ScimDiscoveryResource', [], 'no organization {orgId}, or no such schema'),
      },
      [`${BASE}/ResourceTypes`]: { parameters: [ORG_PARAMETER], get: discovery('List the resource types', 'scimResourceTypes', 'ScimListResponse') },
      [`${BASE}/ResourceTypes/{name}`]: {
        parameters: [ORG_PARAMETER, pathParameter('name', 'User or Group')],
        get: discovery('Get a resource type', 'scimResourceType', 'ScimDiscoveryResource', [], 'no organization {orgId}, or no such resource type'),
      },
    },
  };
}
