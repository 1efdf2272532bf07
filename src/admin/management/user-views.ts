import type { UserEntity } from '../../users/entities/user.entity.js';
import type { CredentialInfo } from '../../users/user-directory.service.js';
import type { UserListRow } from '../../users/queries/user-directory.js';
import type { UserDto, UserKeyDto, UserListItemDto, UserPatDto } from '../dto/user-reads.dto.js';

/** A user as the management API shows it: the fields of its creation, never a hash or credential. */
export function userView(user: UserEntity): UserDto {
  const base = { userId: user.id, type: user.type, userName: user.userName, state: user.state };
  if (user.type === 'machine') {
    return { ...base, name: user.displayName ?? '', description: user.description, accessTokenType: user.accessTokenType ?? 'opaque' };
  }
  return {
    ...base,
    profile: {
      firstName: user.givenName,
      lastName: user.familyName,
      ...(user.displayName !== null ? { displayName: user.displayName } : {}),
      ...(user.preferredLanguage !== null ? { preferredLanguage: user.preferredLanguage } : {}),
    },
    email: { email: user.email, isEmailVerified: user.emailVerified },
    ...(user.phone !== null ? { phone: { phone: user.phone, isPhoneVerified: user.phoneVerified } } : {}),
  };
}

export function userListItem(row: UserListRow): UserListItemDto {
  return {
    userId: row.id,
    userName: row.user_name,
    type: row.type as UserListItemDto['type'],
    state: row.state as UserListItemDto['state'],
    ...(row.display_name !== null ? { displayName: row.display_name } : {}),
    ...(row.email !== null ? { email: row.email } : {}),
  };
}

function dates(credential: CredentialInfo) {
  return { createdAt: credential.createdAt.toISOString(), ...(credential.expiresAt ? { expirationDate: credential.expiresAt.toISOString() } : {}) };
}

export const keyView = (key: CredentialInfo): UserKeyDto => ({ keyId: key.id, ...dates(key) });
export const patView = (pat: CredentialInfo): UserPatDto => ({ tokenId: pat.id, ...dates(pat) });
