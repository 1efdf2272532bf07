import type { FilterNode, PatchPath } from '../filter/scim-filter.ast.js';
import { ScimFilterError } from '../filter/scim-filter.errors.js';
import { findKeyCi, isPlainObject, type JsonObject } from '../filter/scim-filter.objects.js';
import { parsePatchPath } from '../filter/scim-filter.parser.js';
import { ScimPatchError } from './scim-patch.errors.js';
import { classifySchema, type PatchContext } from './scim-patch.schema.js';

/** Where an operation applies. `extension` is the extension URN key, or `undefined` for core attributes. */
export type PatchLocation =
  /** A whole schema: `urn:…:enterprise:2.0:User` (its object) or a core schema URN (the resource itself). */
  | { readonly kind: 'schema'; readonly extension: string | undefined; readonly text: string }
  | {
      readonly kind: 'attribute';
      readonly extension: string | undefined;
      readonly attribute: string;
      /** `name.givenName` → `givenName` */
      readonly subAttribute: string | undefined;
      /** `emails[type eq "work"]` → `type eq "work"` */
      readonly filter: FilterNode | undefined;
      /** `emails[type eq "work"].value` → `value` */
      readonly filterSubAttribute: string | undefined;
      readonly text: string;
    };

export type AttributeLocation = Extract<PatchLocation, { kind: 'attribute' }>;

/** Parses and classifies a PATCH path (or a key of a path-less value object). */
export function resolvePath(ctx: PatchContext, resource: JsonObject, text: string): PatchLocation {
  let parsed: PatchPath;
  try {
    parsed = parsePatchPath(text, ctx.filterOptions);
  } catch (e) {
    if (e instanceof ScimFilterError) throw new ScimPatchError('invalidPath', `${e.message} (path '${text}')`);
    throw e;
  }
  const { uri, attribute, subAttribute } = parsed.attrPath;
  let extension: string | undefined;
  if (uri !== undefined) {
    const keys = Object.keys(resource).filter((k) => isPlainObject(resource[k]));
    const whole = classifySchema(ctx, `${uri}:${attribute}`, keys);
    if (whole !== undefined) {
      if (subAttribute !== undefined || parsed.filter !== undefined) {
        throw new ScimPatchError('invalidPath', `Path '${text}' continues after the schema URN '${uri}:${attribute}'`);
      }
      return { kind: 'schema', extension: whole.extension, text };
    }
    const schema = classifySchema(ctx, uri, keys);
    if (schema === undefined) throw new ScimPatchError('invalidPath', `Path '${text}' names an unknown schema '${uri}'`);
    extension = schema.extension;
  }
  if (parsed.filter !== undefined && subAttribute !== undefined) {
    throw new ScimPatchError('invalidPath', `Path '${text}': a value filter must follow an attribute, not a sub-attribute`);
  }
  return {
    kind: 'attribute',
    extension,
    attribute,
    subAttribute,
    filter: parsed.filter,
    filterSubAttribute: parsed.subAttribute,
    text,
  };
}

/** A location for attribute `name` directly inside a schema (used to expand schema-level values). */
export function attributeIn(extension: string | undefined, name: string, text: string): AttributeLocation {
  return { kind: 'attribute', extension, attribute: name, subAttribute: undefined, filter: undefined, filterSubAttribute: undefined, text };
}

/** The normalised path of the location's attribute, e.g. `emails` or `urn:…:user:manager`. */
export function attributeKey(loc: AttributeLocation): string {
  const prefix = loc.extension === undefined ? '' : `${loc.extension.toLowerCase()}:`;
  return `${prefix}${loc.attribute.toLowerCase()}`;
}

/**
 * The object holding the location's attributes: the resource itself for core attributes, or
 * the object under the extension URN (created when `create` is set).
 */
export function scopeObject(ctx: PatchContext, resource: JsonObject, extension: string | undefined, create: boolean): JsonObject | undefined {
  if (extension === undefined) return resource;
  const key = findKeyCi(resource, extension) ?? extension;
  const value = resource[key];
  if (isPlainObject(value)) {
    ctx.touchedExtensions.add(key);
    return value;
  }
  if (value !== undefined && value !== null) throw new ScimPatchError('invalidPath', `'${key}' is not an object of extension attributes`);
  if (!create) return undefined;
  const created: JsonObject = {};
  resource[key] = created;
  ctx.touchedExtensions.add(key);
  return created;
}
