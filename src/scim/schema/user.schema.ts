import { ENTERPRISE_SCHEMA, USER_SCHEMA } from '../scim.constants.js';
import { attr, multi, str } from './scim-attribute.js';
import type { ScimAttribute } from './scim-attribute.js';

/** The core User schema, RFC 7643 §4.1 and §8.7.1 (the definitions clients read from /Schemas). */
export const USER_ATTRIBUTES: ScimAttribute[] = [
  str(
    'userName',
    "Unique identifier for the User, typically used by the user to directly authenticate to the service provider. Each User MUST include a non-empty userName value. This identifier MUST be unique across the service provider's entire set of Users. REQUIRED.",
    { required: true, uniqueness: 'server' },
  ),
  attr('name', 'complex', "The components of the user's real name.", {
    subAttributes: [
      str(
        'formatted',
        "The full name, including all middle names, titles, and suffixes as appropriate, formatted for display (e.g., 'Ms. Barbara J Jensen, III').",
      ),
      str(
        'familyName',
        "The family name of the User, or last name in most Western languages (e.g., 'Jensen' given the full name 'Ms. Barbara J Jensen, III').",
      ),
      str(
        'givenName',
        "The given name of the User, or first name in most Western languages (e.g., 'Barbara' given the full name 'Ms. Barbara J Jensen, III').",
      ),
      str('middleName', "The middle name(s) of the User (e.g., 'Jane' given the full name 'Ms. Barbara J Jensen, III')."),
      str(
        'honorificPrefix',
        "The honorific prefix(es) of the User, or title in most Western languages (e.g., 'Ms.' given the full name 'Ms. Barbara J Jensen, III').",
      ),
      str(
        'honorificSuffix',
        "The honorific suffix(es) of the User, or suffix in most Western languages (e.g., 'III' given the full name 'Ms. Barbara J Jensen, III').",
      ),
    ],
  }),
  str('displayName', 'The name of the User, suitable for display to end-users. The name SHOULD be the full name of the User being described, if known.'),
  str('nickName', "The casual way to address the user in real life, e.g., 'Bob' or 'Bobby' instead of 'Robert'."),
  attr('profileUrl', 'reference', "A fully qualified URL pointing to a page representing the User's online profile.", { referenceTypes: ['external'] }),
  str('title', 'The user\'s title, such as "Vice President."'),
  str(
    'userType',
    "Used to identify the relationship between the organization and the user. Typical values used might be 'Contractor', 'Employee', 'Intern', 'Temp', 'External', and 'Unknown', but any value may be used.",
    { returned: 'request' },
  ),
  str(
    'preferredLanguage',
    "Indicates the User's preferred written or spoken language. Generally used for selecting a localized user interface; e.g., 'en_US' specifies the language English and country US.",
  ),
  str(
    'locale',
    "Used to indicate the User's default location for purposes of localizing items such as currency, date time format, or numerical representations.",
  ),
  str('timezone', "The User's time zone in the 'Olson' time zone database format, e.g., 'America/Los_Angeles'."),
  attr('active', 'boolean', "A Boolean value indicating the User's administrative status."),
  str(
    'password',
    "The User's cleartext password. This attribute is intended to be used as a means to specify an initial password when creating a new User or to reset an existing User's password.",
    { mutability: 'writeOnly', returned: 'never' },
  ),
  multi(
    'emails',
    "Email addresses for the user. The value SHOULD be canonicalized by the service provider, e.g., 'bjensen@example.com' instead of 'bjensen@EXAMPLE.COM'. Canonical type values of 'work', 'home', and 'other'.",
    'string',
    ['work', 'home', 'other'],
  ),
  multi(
    'phoneNumbers',
    "Phone numbers for the User. The value SHOULD be canonicalized by the service provider according to the format specified in RFC 3966, e.g., 'tel:+1-201-555-0123'. Canonical type values of 'work', 'home', 'mobile', 'fax', 'pager', and 'other'.",
    'string',
    ['work', 'home', 'mobile', 'fax', 'pager', 'other'],
  ),
  multi('ims', 'Instant messaging addresses for the User.', 'string', ['aim', 'gtalk', 'icq', 'xmpp', 'msn', 'skype', 'qq', 'yahoo']),
  multi('photos', 'URLs of photos of the User.', 'reference', ['photo', 'thumbnail']),
  attr('addresses', 'complex', "A physical mailing address for this User. Canonical type values of 'work', 'home', and 'other'.", {
    multiValued: true,
    subAttributes: [
      str('formatted', 'The full mailing address, formatted for display or use with a mailing label. This attribute MAY contain newlines.'),
      str(
        'streetAddress',
        'The full street address component, which may include house number, street name, P.O. box, and multi-line extended street address information. This attribute MAY contain newlines.',
      ),
      str('locality', 'The city or locality component.'),
      str('region', 'The state or region component.'),
      str('postalCode', 'The zip code or postal code component.'),
      str('country', 'The country name component.'),
      str('type', "A label indicating the attribute's function, e.g., 'work' or 'home'.", { canonicalValues: ['work', 'home', 'other'] }),
      attr(
        'primary',
        'boolean',
        "A Boolean value indicating the 'primary' or preferred attribute value for this attribute, e.g., the preferred mailing address or primary email address. The primary attribute value 'true' MUST appear no more than once.",
      ),
    ],
  }),
  multi('entitlements', 'A list of entitlements for the User that represent a thing the User has.', 'string', undefined),
  multi('roles', "A list of roles for the User that collectively represent who the User is, e.g., 'Student', 'Faculty'.", 'string', undefined),
  multi('x509Certificates', 'A list of certificates issued to the User.', 'binary', undefined),
  attr('groups', 'complex', 'A list of groups to which the user belongs, either through direct membership, through nested groups, or dynamically calculated.', {
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [
      str('value', "The identifier of the User's group.", { mutability: 'readOnly' }),
      attr('$ref', 'reference', "The URI of the corresponding 'Group' resource to which the user belongs.", {
        mutability: 'readOnly',
        referenceTypes: ['Group'],
      }),
      str('display', 'A human-readable name, primarily used for display purposes.', { mutability: 'readOnly' }),
      str('type', "A label indicating the attribute's function, e.g., 'direct' or 'indirect'.", {
        mutability: 'readOnly',
        canonicalValues: ['direct', 'indirect'],
      }),
    ],
  }),
];

/** The enterprise extension, RFC 7643 §4.3 and §8.7.1. */
export const ENTERPRISE_ATTRIBUTES: ScimAttribute[] = [
  str('employeeNumber', 'Numeric or alphanumeric identifier assigned to a person, typically based on order of hire or association with an organization.'),
  str('costCenter', 'Identifies the name of a cost center.'),
  str('organization', 'Identifies the name of an organization.'),
  str('division', 'Identifies the name of a division.'),
  str('department', 'Identifies the name of a department.'),
  attr(
    'manager',
    'complex',
    "The User's manager. A complex type that optionally allows service providers to represent organizational hierarchy by referencing the 'id' attribute of another User.",
    {
      subAttributes: [
        str('value', "The id of the SCIM resource representing the User's manager. REQUIRED."),
        attr('$ref', 'reference', "The URI of the SCIM resource representing the User's manager. REQUIRED.", { referenceTypes: ['User'] }),
        str('displayName', "The displayName of the User's manager. OPTIONAL and READ-ONLY.", { mutability: 'readOnly' }),
      ],
    },
  ),
];

export const SCHEMAS = [
  { id: USER_SCHEMA, name: 'User', description: 'User Account', attributes: USER_ATTRIBUTES },
  { id: ENTERPRISE_SCHEMA, name: 'EnterpriseUser', description: 'Enterprise User', attributes: ENTERPRISE_ATTRIBUTES },
];
