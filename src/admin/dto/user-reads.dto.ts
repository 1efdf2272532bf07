import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ListPageQueryDto } from '../../common/http/validation/list-page.dto.js';
import { ACCESS_TOKEN_TYPES } from './projects.dto.js';

const USER_TYPES = ['human', 'machine'] as const;
const USER_STATES = ['active', 'inactive', 'locked'] as const;

export class ListUsersQueryDto extends ListPageQueryDto {
  @ApiPropertyOptional({ description: 'matched case-insensitively as a substring of the user name, first, last and display name, and e-mail', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  // The stored search text separates its fields by a line break (users/rules/user-search.ts).
  @Matches(/^[^\u0000-\u001f]*$/, { message: 'query must not contain control characters' })
  query?: string;
}

export class UserListItemDto {
  @ApiProperty() userId: string;
  @ApiProperty() userName: string;
  @ApiProperty({ enum: USER_TYPES }) type: (typeof USER_TYPES)[number];
  @ApiProperty({ enum: USER_STATES }) state: (typeof USER_STATES)[number];
  @ApiPropertyOptional({ description: "a human's display name, a machine's name" }) displayName?: string;
  @ApiPropertyOptional() email?: string;
}

export class UserListDto {
  @ApiProperty({ type: [UserListItemDto] }) users: UserListItemDto[];
  @ApiProperty({ description: 'how many users match, on all pages' }) total: number;
}

class UserProfileViewDto {
  @ApiProperty({ nullable: true, type: String }) firstName: string | null;
  @ApiProperty({ nullable: true, type: String }) lastName: string | null;
  @ApiPropertyOptional() displayName?: string;
  @ApiPropertyOptional() preferredLanguage?: string;
}

class UserEmailViewDto {
  @ApiProperty({ nullable: true, type: String }) email: string | null;
  @ApiProperty() isEmailVerified: boolean;
}

class UserPhoneViewDto {
  @ApiProperty() phone: string;
  @ApiProperty() isPhoneVerified: boolean;
}

/** One user: a human's profile, e-mail and phone, or a machine's name, description and token type. */
export class UserDto {
  @ApiProperty() userId: string;
  @ApiProperty({ enum: USER_TYPES }) type: (typeof USER_TYPES)[number];
  @ApiProperty() userName: string;
  @ApiProperty({ enum: USER_STATES }) state: (typeof USER_STATES)[number];
  @ApiPropertyOptional({ type: UserProfileViewDto, description: 'human users' }) profile?: UserProfileViewDto;
  @ApiPropertyOptional({ type: UserEmailViewDto, description: 'human users' }) email?: UserEmailViewDto;
  @ApiPropertyOptional({ type: UserPhoneViewDto, description: 'human users with a phone number' }) phone?: UserPhoneViewDto;
  @ApiPropertyOptional({ description: 'machine users' }) name?: string;
  @ApiPropertyOptional({ description: 'machine users', nullable: true, type: String }) description?: string | null;
  @ApiPropertyOptional({ enum: ACCESS_TOKEN_TYPES, description: 'machine users' }) accessTokenType?: (typeof ACCESS_TOKEN_TYPES)[number];
}

export class UserKeyDto {
  @ApiProperty() keyId: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'absent: the key does not expire' }) expirationDate?: string;
}

export class UserKeyListDto {
  @ApiProperty({ type: [UserKeyDto] }) keys: UserKeyDto[];
  @ApiProperty() total: number;
}

export class UserPatDto {
  @ApiProperty() tokenId: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'absent: the token does not expire' }) expirationDate?: string;
}

export class UserPatListDto {
  @ApiProperty({ type: [UserPatDto] }) pats: UserPatDto[];
  @ApiProperty() total: number;
}

/** `POST …/users/{userId}/invite`, `…/password/reset` and `…/email/verify` (docs/mail.md): the mail is queued; its link works until then. */
export class InvitationDto {
  @ApiProperty({
    format: 'date-time',
    description: 'when the link in the mail stops working (an invitation: 7 days; a reset: 1 hour; a verification: 24 hours)',
  })
  expiresAt: string;
}

/** A browser session of the login UI (docs/mail.md, "Sessions"), named by its public id: the cookie's value is never shown. */
export class UserSessionDto {
  @ApiProperty({ description: 'the session’s public id (not its cookie)' }) sessionId: string;
  @ApiProperty({ format: 'date-time' }) signedInAt: string;
  @ApiProperty({ format: 'date-time', description: 'when the session last served a sign-in (to an application or the account page)' }) lastUsedAt: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) expiresAt: string | null;
  @ApiProperty({ type: [String], description: 'client ids of the applications the session signed in to' }) applications: string[];
  @ApiProperty({ type: [String], description: 'RFC 8176 authentication methods of the sign-in' }) amr: string[];
}

export class UserSessionListDto {
  @ApiProperty({ type: [UserSessionDto] }) sessions: UserSessionDto[];
  @ApiProperty() total: number;
}
