import type { GroupChange } from '../../users/groups/group-edit.js';
import { ScimError } from '../errors/scim-error.js';
import { getCi, isPlainObject } from '../filter/scim-filter.objects.js';
import { ScimFilterError, parsePatchPath } from '../filter/index.js';
import type { FilterNode } from '../filter/index.js';
import type { PatchOperation } from '../patch/index.js';
import { GROUP_SCHEMA } from '../scim.constants.js';
import { memberIds } from './scim-group.members.js';

/**
 * A Group PatchOp (RFC 7644 §3.5.2) as the domain's ordered changes. A group can hold 100,000 members, so
 * the patch is not applied to a materialised document (as for Users) but read as membership changes, in
 * every shape Microsoft Entra ID and Okta send (docs/product-rules.md, "Groups"):
 * - `add` with `path: "members"` and a value array (or one object), or without a path and `{members: […]}`;
 * - `remove` with `path: 'members[value eq "…"]'` (also `or`-ed), with `path: "members"` and a value array
 *   (only those), or `path: "members"` alone (all of them);
 * - `replace` with `path: "members"` and the full list (`[]` empties the group), without a path and
 *   `{id?, displayName?, externalId?, members?}`, or with `path: "displayName"` / `"externalId"`.
 * `op` is matched ignoring case; the attribute names too.
 */
export function groupChangesOf(operations: readonly PatchOperation[]): GroupChange[] {
  return operations.flatMap((raw, index) => {
    try {
      return changesOf(raw);
    } catch (error) {
      if (error instanceof ScimError) throw new ScimError(error.status, `Operations[${index}]: ${error.message}`, error.scimType);
      throw error;
    }
  });
}

function changesOf(raw: unknown): GroupChange[] {
  if (!isPlainObject(raw)) throw ScimError.badRequest('invalidSyntax', 'each operation must be an object');
  const op = getCi(raw, 'op');
  const name = typeof op === 'string' ? op.toLowerCase() : undefined;
  if (name !== 'add' && name !== 'remove' && name !== 'replace')
    throw ScimError.badRequest('invalidSyntax', `"op" must be "add", "remove" or "replace", not ${JSON.stringify(op)}`);
  const path = getCi(raw, 'path');
  const value = getCi(raw, 'value');
  if (path === undefined || path === null || path === '') {
    if (name === 'remove') throw ScimError.badRequest('noTarget', '"remove" needs a "path" (RFC 7644 §3.5.2.2)');
    return pathless(name, value);
  }
  if (typeof path !== 'string') throw ScimError.badRequest('invalidPath', '"path" must be a string');
  const target = parsePath(path);
  if (target.attribute === 'members') return membersChange(name, target.filter, value);
  if (target.filter) throw ScimError.badRequest('invalidPath', `"${path}": only members take a value filter`);
  if (name === 'remove') {
    if (target.attribute === 'externalid') return [{ kind: 'set', externalId: null }];
    throw ScimError.badRequest('mutability', 'displayName is required and cannot be removed');
  }
  return [attributeChange(target.attribute, value)];
}

function pathless(op: 'add' | 'replace', value: unknown): GroupChange[] {
  if (!isPlainObject(value)) throw ScimError.badRequest('invalidValue', 'an operation without "path" takes an object of attributes as its "value"');
  const changes: GroupChange[] = [];
  for (const [key, attribute] of Object.entries(value)) {
    const name = stripSchema(key.toLowerCase());
    // `id` and `schemas` come along in Entra's and Okta's rename; they change nothing.
    if (name === 'id' || name === 'schemas' || name === 'meta') continue;
    if (name === 'members')
      changes.push(
        op === 'add' ? { kind: 'add', userIds: memberIds(attribute, 'members') } : { kind: 'replace', userIds: memberIds(attribute ?? [], 'members') },
      );
    else changes.push(attributeChange(name, attribute));
  }
  return changes;
}

function membersChange(op: 'add' | 'remove' | 'replace', filter: FilterNode | undefined, value: unknown): GroupChange[] {
  if (filter) {
    if (op !== 'remove') throw ScimError.badRequest('invalidPath', `"${op}" takes "members" without a value filter`);
    return [{ kind: 'remove', userIds: valuesEqualTo(filter) }];
  }
  if (op === 'add') return [{ kind: 'add', userIds: memberIds(value, 'value') }];
  if (op === 'replace') return [{ kind: 'replace', userIds: value === null ? [] : memberIds(value, 'value') }];
  const hasValue = value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
  return [hasValue ? { kind: 'remove', userIds: memberIds(value, 'value') } : { kind: 'removeAll' }];
}

function attributeChange(name: string, value: unknown): GroupChange {
  const text = typeof value === 'string' ? value : isPlainObject(value) ? getCi(value, 'value') : value;
  if (name === 'displayname') {
    if (typeof text !== 'string') throw ScimError.badRequest('invalidValue', '"displayName" must be a string');
    return { kind: 'set', displayName: text };
  }
  if (name === 'externalid') {
    if (text !== null && typeof text !== 'string') throw ScimError.badRequest('invalidValue', '"externalId" must be a string');
    return { kind: 'set', externalId: text };
  }
  throw ScimError.badRequest('invalidPath', `"${name}" is not a writable attribute of a Group (displayName, externalId, members)`);
}

/** The ids of `value eq "…"` conditions joined by `or`: the filters Entra and Okta send to remove members. */
function valuesEqualTo(filter: FilterNode): string[] {
  if (filter.kind === 'or') return [...valuesEqualTo(filter.left), ...valuesEqualTo(filter.right)];
  if (filter.kind === 'compare' && filter.op === 'eq' && filter.attrPath.path === 'value' && typeof filter.value === 'string') return [filter.value];
  throw ScimError.badRequest('invalidFilter', 'a members value filter must be value eq "<user id>" (or several joined by or)');
}

function parsePath(path: string): { attribute: string; filter: FilterNode | undefined } {
  try {
    const parsed = parsePatchPath(path);
    if (parsed.subAttribute !== undefined || parsed.attrPath.subAttribute !== undefined)
      throw ScimError.badRequest('invalidPath', `"${path}": sub-attributes of a Group are not writable`);
    const uri = parsed.attrPath.uri;
    if (uri !== undefined && uri.toLowerCase() !== GROUP_SCHEMA.toLowerCase())
      throw ScimError.badRequest('invalidPath', `"${path}" is not an attribute of a Group`);
    return { attribute: parsed.attrPath.attribute.toLowerCase(), filter: parsed.filter };
  } catch (error) {
    if (error instanceof ScimFilterError) throw ScimError.badRequest('invalidPath', `"${path}": ${error.message}`);
    throw error;
  }
}

function stripSchema(name: string): string {
  const prefix = `${GROUP_SCHEMA.toLowerCase()}:`;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}
