import { GROUP_SCHEMA } from '../scim.constants.js';
import { attr, str } from './scim-attribute.js';
import type { ScimAttribute } from './scim-attribute.js';

/** The core Group schema, RFC 7643 §4.2 and §8.7.1: members are users only (no nested groups). */
export const GROUP_ATTRIBUTES: ScimAttribute[] = [
  str('displayName', 'A human-readable name for the Group. REQUIRED. Unique within the organization, compared case-insensitively.', {
    required: true,
    uniqueness: 'server',
  }),
  attr('members', 'complex', 'A list of members of the Group.', {
    multiValued: true,
    subAttributes: [
      str('value', 'Identifier of the member of this Group.', { mutability: 'immutable', caseExact: true }),
      attr('$ref', 'reference', 'The URI corresponding to a SCIM resource that is a member of this Group.', {
        mutability: 'immutable',
        referenceTypes: ['User'],
      }),
      str('display', "The member's display name.", { mutability: 'readOnly' }),
      str('type', 'A label indicating the type of resource, always "User".', { mutability: 'immutable', canonicalValues: ['User'] }),
    ],
  }),
];

export const GROUP_SCHEMA_DEFINITION = { id: GROUP_SCHEMA, name: 'Group', description: 'Group', attributes: GROUP_ATTRIBUTES };
