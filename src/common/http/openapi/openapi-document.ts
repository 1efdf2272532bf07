import { STATUS_CODES } from 'node:http';
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  ResponseObject,
  SchemaObject,
  SecuritySchemeObject,
  TagObject,
} from '@nestjs/swagger';
import { ACCESS_EXTENSION } from './access-extension.js';
import type { AccessExtension, CallerAccessExtension } from './access-extension.js';

/** A part of the API that Nest's controllers do not describe (SCIM, OAuth / OpenID Connect): written by its module. */
export interface OpenApiSurface {
  paths: Record<string, PathItemObject>;
  schemas?: Record<string, SchemaObject>;
  securitySchemes?: Record<string, SecuritySchemeObject>;
  tags?: TagObject[];
}

/** The admin API's error body, registered by name through `extraModels` (ApiErrorDto). */
export const API_ERROR_SCHEMA_REF = '#/components/schemas/ApiErrorDto';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * Finishes the document @nestjs/swagger generated from the controllers, then adds the surfaces it
 * cannot see. On every Nest operation:
 * - the access policy (`x-portcullis-access`) becomes `security: []` for a public route, or the role
 *   line at the head of the description;
 * - an error response without a body gets the `{code, message, details}` schema: ApiExceptionFilter and
 *   the JSON body parser answer every error of this surface in it;
 * - an operation with a body or query parameters gets its 400: the global ValidationPipe refuses unknown
 *   fields and wrong types (src/common/errors/validation.pipe.ts), the body parser malformed JSON.
 * Surfaces are added last, untouched: they describe their own errors (SCIM's and RFC 6749's).
 */
export function completeOpenApiDocument(document: OpenAPIObject, surfaces: OpenApiSurface[]): OpenAPIObject {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) completeOperation(operation);
    }
  }
  for (const surface of surfaces) addSurface(document, surface);
  return document;
}

function completeOperation(operation: OperationObject): void {
  const access = (operation as unknown as Record<string, unknown>)[ACCESS_EXTENSION] as AccessExtension | CallerAccessExtension | undefined;
  if (access && 'public' in access) operation.security = [];
  else if (access && 'caller' in access) operation.description = joinLines(ANY_CALLER_LINE, operation.description);
  else if (access) operation.description = joinLines(requiredRoleLine(access), operation.description);
  const hasInput = operation.requestBody !== undefined || (operation.parameters ?? []).some((p) => (p as ParameterObject).in === 'query');
  if (hasInput && !operation.responses['400']) {
    operation.responses['400'] = { description: 'the request fails validation (unknown fields, wrong types, malformed JSON); `details` names each field' };
  }
  for (const [status, response] of Object.entries(operation.responses)) {
    // `@ApiOkResponse({ type })` leaves the description empty; an explorer shows the status text instead.
    if (!(response as ReferenceObject).$ref && !(response as ResponseObject).description)
      (response as ResponseObject).description = STATUS_CODES[Number(status)] ?? status;
    if (Number(status) >= 400 && !(response as ReferenceObject).$ref && !(response as ResponseObject).content) {
      (response as ResponseObject).content = { 'application/json': { schema: { $ref: API_ERROR_SCHEMA_REF } } };
    }
  }
}

/** The first line of an operation about the caller itself (`@AnyCaller`). */
const ANY_CALLER_LINE = '**Required role:** none; any valid bearer token, and the answer is about its own user only.';

/** The first line of an authenticated operation's description; surfaces described by hand use it too. */
export function requiredRoleLine(access: Exclude<AccessExtension, { public: true }>): string {
  const where = access.organizationParameter ? `on the organization \`{${access.organizationParameter}}\`` : 'on the instance';
  return `**Required role:** \`${access.role}\` ${where} (an IAM_OWNER holds every organization role, an ORG_OWNER holds ORG_USER_MANAGER).`;
}

function joinLines(first: string, rest: string | undefined): string {
  return rest ? `${first}\n\n${rest}` : first;
}

function addSurface(document: OpenAPIObject, surface: OpenApiSurface): void {
  for (const [path, item] of Object.entries(surface.paths)) {
    if (document.paths[path]) throw new Error(`OpenAPI: ${path} is described twice`);
    document.paths[path] = item;
  }
  const components = (document.components ??= {});
  components.schemas = mergeNamed(components.schemas, surface.schemas, 'schema');
  components.securitySchemes = mergeNamed(components.securitySchemes, surface.securitySchemes, 'security scheme');
  document.tags = [...(document.tags ?? []), ...(surface.tags ?? [])];
}

function mergeNamed<T>(into: Record<string, T> | undefined, from: Record<string, T> | undefined, what: string): Record<string, T> {
  const out = { ...into };
  for (const [name, value] of Object.entries(from ?? {})) {
    if (name in out && JSON.stringify(out[name]) !== JSON.stringify(value)) throw new Error(`OpenAPI: two different ${what}s named ${name}`);
    out[name] = value;
  }
  return out;
}
