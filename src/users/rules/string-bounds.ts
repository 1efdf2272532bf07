import { columnLength } from '../../common/text/column-bounds.js';
import { ApplicationEntity } from '../entities/application.entity.js';
import { GroupEntity } from '../entities/group.entity.js';
import { OrganizationEntity } from '../entities/organization.entity.js';
import { ProjectEntity } from '../entities/project.entity.js';
import { UserContactEntity } from '../entities/user-contact.entity.js';
import { UserEntity } from '../entities/user.entity.js';

/**
 * The one table of string bounds (docs/product-rules.md, "Consistency"): every string a surface writes has a
 * bound, checked before the database with the same 400 on SQLite and MariaDB. A value stored in a column takes
 * the column's length (read from the entity, so the two cannot drift); a value kept only in a JSON document
 * (SCIM's addresses, ims, roles, … in `users.scim_attributes`, a MEDIUMTEXT) takes DOCUMENT_TEXT.
 */
export const STRING_BOUNDS = {
  userName: columnLength(UserEntity, 'userName'),
  userExternalId: columnLength(UserEntity, 'externalId'),
  givenName: columnLength(UserEntity, 'givenName'),
  familyName: columnLength(UserEntity, 'familyName'),
  userDisplayName: columnLength(UserEntity, 'displayName'),
  nickName: columnLength(UserEntity, 'nickName'),
  preferredLanguage: columnLength(UserEntity, 'preferredLanguage'),
  locale: columnLength(UserEntity, 'locale'),
  timezone: columnLength(UserEntity, 'timezone'),
  title: columnLength(UserEntity, 'title'),
  userType: columnLength(UserEntity, 'userType'),
  profileUrl: columnLength(UserEntity, 'profileUrl'),
  gender: columnLength(UserEntity, 'gender'),
  email: columnLength(UserEntity, 'email'),
  /** As sent: the stored number is the compacted form, never longer. */
  phone: columnLength(UserEntity, 'phone'),
  /** `emails[].type`, `phoneNumbers[].type`, indexed lower-cased for SCIM filters. */
  contactType: columnLength(UserContactEntity, 'typeLower'),
  /** A machine user's `name`. */
  machineName: columnLength(UserEntity, 'displayName'),
  machineDescription: columnLength(UserEntity, 'description'),
  userId: columnLength(UserEntity, 'id'),
  passwordHash: columnLength(UserEntity, 'passwordHash'),
  orgName: columnLength(OrganizationEntity, 'name'),
  projectName: columnLength(ProjectEntity, 'name'),
  applicationName: columnLength(ApplicationEntity, 'name'),
  /** An API application's resource indicator (RFC 8707). */
  resourceUri: columnLength(ApplicationEntity, 'resourceUri'),
  groupDisplayName: columnLength(GroupEntity, 'displayName'),
  groupExternalId: columnLength(GroupEntity, 'externalId'),
  /** One redirect URI of an application (kept in a JSON list). */
  redirectUri: 2000,
  /** Text kept in a JSON document: as long as the longest text column (`profile_url`), ample for an address line. */
  documentText: 1000,
  /** A base64 DER certificate (SCIM `x509Certificates[].value`, RFC 7643 §4.1.2): 12 KiB of DER. */
  certificate: 16_384,
} as const;

export type StringBound = keyof typeof STRING_BOUNDS;
