/**
 * Names of the users tables and of the columns other modules' SQL fragments refer to (the SCIM filter
 * compiler and sort keys build `WHERE` and `ORDER BY` over `users u`). Constants, so that a renamed
 * column is renamed here and the compiler follows; the statements themselves live in this folder.
 */
export const USER_TABLE = 'users';
export const CONTACT_TABLE = 'user_contacts';

export const USER_COLUMNS = {
  id: 'id',
  orgId: 'org_id',
  type: 'type',
  state: 'state',
  externalId: 'external_id',
  userNameLower: 'user_name_lower',
  familyName: 'family_name',
  givenName: 'given_name',
  displayName: 'display_name',
  nickName: 'nick_name',
  title: 'title',
  userType: 'user_type',
  preferredLanguage: 'preferred_language',
  locale: 'locale',
  timezone: 'timezone',
  emailLower: 'email_lower',
  createdAt: 'created_at',
  changedAt: 'changed_at',
} as const;

/** The user's e-mail addresses and phone numbers (`kind` is `email` or `phone`), compared lower-cased. */
export const CONTACT_COLUMNS = {
  userId: 'user_id',
  kind: 'kind',
  valueLower: 'value_lower',
  typeLower: 'type_lower',
  isPrimary: 'is_primary',
} as const;

export type UserColumn = (typeof USER_COLUMNS)[keyof typeof USER_COLUMNS];
export type ContactColumn = (typeof CONTACT_COLUMNS)[keyof typeof CONTACT_COLUMNS];
