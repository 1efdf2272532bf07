/** An attribute definition of RFC 7643 §7 ("attributes" of a Schema resource). */
export interface ScimAttribute {
  name: string;
  type: 'string' | 'boolean' | 'decimal' | 'integer' | 'dateTime' | 'reference' | 'complex' | 'binary';
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: ScimAttribute[];
}

type Options = Partial<Omit<ScimAttribute, 'name' | 'type' | 'description'>>;

/** Builds a definition with RFC 7643 §2.2 defaults: optional, readWrite, returned by default, caseExact false. */
export function attr(name: string, type: ScimAttribute['type'], description: string, options: Options = {}): ScimAttribute {
  return {
    name,
    type,
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...options,
  };
}

export const str = (name: string, description: string, options: Options = {}) => attr(name, 'string', description, options);

/** A multi-valued complex attribute with `value`, `display`, `type`, `primary` (RFC 7643 §2.4). */
export function multi(
  name: string,
  description: string,
  valueType: ScimAttribute['type'],
  types: string[] | undefined,
  extra: ScimAttribute[] = [],
): ScimAttribute {
  return attr(name, 'complex', description, {
    multiValued: true,
    subAttributes: [
      attr('value', valueType, `The value of the ${name} entry.`, valueType === 'reference' ? { referenceTypes: ['external'] } : {}),
      str('display', 'A human-readable name, primarily used for display purposes.'),
      str('type', `A label indicating the attribute's function.`, types ? { canonicalValues: types } : {}),
      attr(
        'primary',
        'boolean',
        `A Boolean value indicating the 'primary' or preferred attribute value for this attribute. The primary attribute value 'true' MUST appear no more than once.`,
      ),
      ...extra,
    ],
  });
}
