import { AttributePathSet } from '../filter/scim-attribute-set.js';
import { DEFAULT_CASE_EXACT_ATTRIBUTES } from '../filter/scim-filter.matcher.js';
import type { ParseFilterOptions } from '../filter/scim-filter.parser.js';
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, USER_SCHEMA } from '../scim.constants.js';
import { SINGULAR_USER_ATTRIBUTES } from '../users/scim-user.attributes.js';

/**
 * The little schema knowledge the PATCH engine needs. Paths are matched ignoring case:
 * `active`, `name.givenName`, `*.primary` (any attribute's `primary`), and for extension
 * attributes `<extension URN>:<attribute>[.sub]`.
 */
interface ScimPatchSchema {
  /** Boolean attributes; the strings "True"/"False" (any case) are converted (Microsoft Entra ID sends them). */
  readonly booleanAttributes: readonly string[];
  /** Multi-valued attributes, even when currently unassigned ("add" appends to these). */
  readonly multiValuedAttributes: readonly string[];
  /** `mutability: readOnly` attributes: changing or removing them fails with `mutability`. */
  readonly readOnlyAttributes: readonly string[];
  /** `required` attributes: removing them fails with `mutability` (RFC 7644 §3.5.2.2). */
  readonly requiredAttributes: readonly string[];
  /** Attributes compared case-sensitively in value filters (see the filter matcher). */
  readonly caseExactAttributes: readonly string[];
  /** Complex attributes for which a bare string means `{ "value": string }` (manager id, member id). */
  readonly valueObjectAttributes: readonly string[];
  /** Extension schema URNs; their attributes are stored in an object under the URN key. */
  readonly extensionSchemas: readonly string[];
  /** Core schema URNs, whose attributes sit at the top level of the resource. */
  readonly coreSchemas: readonly string[];
  /** Spellings used when the engine creates a key the resource does not have yet (`username` → `userName`). */
  readonly attributeNames: readonly string[];
}

export const DEFAULT_PATCH_SCHEMA: ScimPatchSchema = {
  booleanAttributes: ['active', '*.primary'],
  multiValuedAttributes: ['schemas', 'emails', 'phoneNumbers', 'ims', 'photos', 'addresses', 'groups', 'entitlements', 'roles', 'x509Certificates', 'members'],
  readOnlyAttributes: ['id', 'meta', 'schemas', 'groups'],
  requiredAttributes: ['userName'],
  caseExactAttributes: DEFAULT_CASE_EXACT_ATTRIBUTES,
  valueObjectAttributes: [`${ENTERPRISE_SCHEMA}:manager`, 'members'],
  extensionSchemas: [ENTERPRISE_SCHEMA],
  coreSchemas: [USER_SCHEMA, GROUP_SCHEMA],
  attributeNames: [
    'schemas',
    'id',
    'externalId',
    'meta',
    'resourceType',
    'created',
    'lastModified',
    'location',
    'version',
    'userName',
    'name',
    'formatted',
    'familyName',
    'givenName',
    'middleName',
    'honorificPrefix',
    'honorificSuffix',
    ...SINGULAR_USER_ATTRIBUTES,
    'active',
    'password',
    'emails',
    'phoneNumbers',
    'ims',
    'photos',
    'addresses',
    'streetAddress',
    'locality',
    'region',
    'postalCode',
    'country',
    'groups',
    'entitlements',
    'roles',
    'x509Certificates',
    'members',
    'value',
    'display',
    'type',
    'primary',
    '$ref',
    'employeeNumber',
    'costCenter',
    'organization',
    'division',
    'department',
    'manager',
  ],
};

/** Options of `applyPatch`. Each schema field given replaces the default list (spread `DEFAULT_PATCH_SCHEMA` to extend it). */
export interface ApplyPatchOptions extends Partial<ScimPatchSchema> {
  /** Parser options for filters inside paths, e.g. `{ allowUnquotedStrings: true }`. */
  readonly filterOptions?: ParseFilterOptions;
  /**
   * When an "add"/"replace" path with a value filter matches no value, create one from the
   * filter's `eq` comparisons (what Microsoft Entra ID expects). Default `true`;
   * `false` gives RFC 7644's `noTarget` for "replace" and "add".
   */
  readonly createOnFilterMiss?: boolean;
  /** When set, no operation may grow a multi-valued attribute past this many values (scim-patch.bounds.ts). */
  readonly maxValuesPerAttribute?: number;
}

/** Per-request state: lookup sets built from the options, and extensions touched so far. */
export interface PatchContext {
  readonly booleans: AttributePathSet;
  readonly multiValued: AttributePathSet;
  readonly readOnly: AttributePathSet;
  readonly required: AttributePathSet;
  readonly caseExact: AttributePathSet;
  readonly valueObjects: AttributePathSet;
  readonly extensionSchemas: readonly string[];
  readonly coreSchemas: readonly string[];
  readonly names: ReadonlyMap<string, string>;
  readonly filterOptions: ParseFilterOptions;
  readonly createOnFilterMiss: boolean;
  readonly touchedExtensions: Set<string>;
}

export function createPatchContext(options: ApplyPatchOptions): PatchContext {
  const schema: ScimPatchSchema = { ...DEFAULT_PATCH_SCHEMA, ...definedOnly(options) };
  return {
    booleans: new AttributePathSet(schema.booleanAttributes),
    multiValued: new AttributePathSet(schema.multiValuedAttributes),
    readOnly: new AttributePathSet(schema.readOnlyAttributes),
    required: new AttributePathSet(schema.requiredAttributes),
    caseExact: new AttributePathSet(schema.caseExactAttributes),
    valueObjects: new AttributePathSet(schema.valueObjectAttributes),
    extensionSchemas: schema.extensionSchemas,
    coreSchemas: schema.coreSchemas,
    names: new Map(schema.attributeNames.map((n) => [n.toLowerCase(), n])),
    filterOptions: options.filterOptions ?? {},
    createOnFilterMiss: options.createOnFilterMiss ?? true,
    touchedExtensions: new Set(),
  };
}

function definedOnly(options: ApplyPatchOptions): Partial<ScimPatchSchema> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<ScimPatchSchema>;
}

/** The spelling to use for a new key: the schema's, else the client's. */
export function canonicalName(ctx: PatchContext, name: string): string {
  return ctx.names.get(name.toLowerCase()) ?? name;
}

/**
 * Classifies a schema URN: an extension (returns its configured spelling, or the key of an
 * extension object the resource already has), a configured core schema (`{ extension: undefined }`),
 * or unknown (`undefined`).
 */
export function classifySchema(ctx: PatchContext, urn: string, existingKeys: readonly string[]): { readonly extension: string | undefined } | undefined {
  const lower = urn.toLowerCase();
  const configured = ctx.extensionSchemas.find((s) => s.toLowerCase() === lower);
  if (configured !== undefined) return { extension: configured };
  if (ctx.coreSchemas.some((s) => s.toLowerCase() === lower)) return { extension: undefined };
  const existing = existingKeys.find((k) => k.toLowerCase() === lower);
  return existing === undefined ? undefined : { extension: existing };
}
