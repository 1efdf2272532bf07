import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Validate, ValidateIf, ValidateNested } from 'class-validator';
import { ACCESS_TOKEN_TYPES } from './projects.dto.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { FitsBcrypt, HumanEmailDto, HumanPhoneDto, UserNameField } from './users.dto.js';
import { LANGUAGE_TAG } from '../../users/rules/language-tag.js';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';

/** Validated when sent; `null` is refused (unlike `@IsOptional`, which would let it through as "not sent"). */
const Sent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

class ProfileChangesDto {
  @ApiPropertyOptional() @Sent() @IsString() @IsNotBlank() @Bounded(STRING_BOUNDS.givenName) firstName?: string;
  @ApiPropertyOptional() @Sent() @IsString() @IsNotBlank() @Bounded(STRING_BOUNDS.familyName) lastName?: string;
  @ApiPropertyOptional() @Sent() @IsString() @Bounded(STRING_BOUNDS.userDisplayName) displayName?: string;

  @ApiPropertyOptional({ example: 'en' })
  @Sent()
  @IsString()
  @Bounded(STRING_BOUNDS.preferredLanguage)
  @Matches(LANGUAGE_TAG, { message: 'preferredLanguage must be a language tag such as en or de-CH' })
  preferredLanguage?: string;
}

/**
 * A partial change of a user: any field of its creation (docs/product-rules.md, "API"). `profile`,
 * `email` and `phone` apply to human users, `name`, `description` and `accessTokenType` to machine
 * users; `phone: null` removes the phone number, `description: null` the description.
 */
export class ChangeUserDto {
  @UserNameField({ required: false }) @Sent() userName?: string;

  @ApiPropertyOptional({ type: ProfileChangesDto }) @Sent() @IsObject() @ValidateNested() @Type(() => ProfileChangesDto) profile?: ProfileChangesDto;
  @ApiPropertyOptional({ type: HumanEmailDto }) @Sent() @IsObject() @ValidateNested() @Type(() => HumanEmailDto) email?: HumanEmailDto;
  @ApiPropertyOptional({ type: HumanPhoneDto, nullable: true })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => HumanPhoneDto)
  phone?: HumanPhoneDto | null;

  @ApiPropertyOptional() @Sent() @IsString() @IsNotBlank() @Bounded(STRING_BOUNDS.machineName) name?: string;
  @ApiPropertyOptional({ nullable: true, type: String }) @IsOptional() @IsString() @Bounded(STRING_BOUNDS.machineDescription) description?: string | null;
  @ApiPropertyOptional({ enum: ACCESS_TOKEN_TYPES }) @Sent() @IsIn(ACCESS_TOKEN_TYPES) accessTokenType?: (typeof ACCESS_TOKEN_TYPES)[number];
}

export class SetPasswordDto {
  @ApiProperty({ description: "the user's new password; hashed with bcrypt, never returned" })
  @IsString()
  @IsNotEmpty()
  @Validate(FitsBcrypt)
  password: string;

  @ApiProperty({
    required: false,
    default: false,
    description: 'the user must choose a new password at the next sign-in, before the application gets a code (docs/mail.md, "Password change required")',
  })
  @IsOptional()
  @IsBoolean()
  changeRequired?: boolean;
}
