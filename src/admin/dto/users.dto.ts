import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDateString,
  IsEmail,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Validate,
  ValidateNested,
  ValidatorConstraint,
} from 'class-validator';
import type { ValidationArguments, ValidatorConstraintInterface } from 'class-validator';
import { normalizePhone } from '../../users/phone.js';
import { PASSWORD_MAX_BYTES } from '../../common/crypto/password-hasher.js';
import { passwordTooLong } from '../../users/rules/password-policy.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';
import { userNameProblem } from '../../users/rules/user-name.js';
import { ACCESS_TOKEN_TYPES } from './projects.dto.js';
import { LANGUAGE_TAG } from '../../users/rules/language-tag.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';

/** The one user name rule (users/rules/user-name.ts); its message names the field, as the pipe's others do. */
@ValidatorConstraint({ name: 'userName' })
class IsUserName implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && userNameProblem(value) === undefined;
  }

  defaultMessage(args: ValidationArguments): string {
    return `${args.property} ${typeof args.value === 'string' ? userNameProblem(args.value) : 'must be a string'}`;
  }
}

/** A login name: 1–255 characters, no white space, control or invisible format characters. */
export function UserNameField({ required = true } = {}): PropertyDecorator {
  return applyDecorators(ApiProperty({ maxLength: STRING_BOUNDS.userName, required }), IsString(), Validate(IsUserName));
}

/** Checked at the edge with the domain's own rule, so the 400 names the nested field (`phone.phone`). */
@ValidatorConstraint({ name: 'isPhoneNumber' })
class IsPhoneNumber implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string') return false;
    try {
      normalizePhone(value);
      return true;
    } catch {
      return false;
    }
  }

  defaultMessage(): string {
    return 'phone must be a phone number such as +41 79 123 45 67';
  }
}

/** The password policy's byte limit (bcrypt reads only the first 72 bytes). */
@ValidatorConstraint({ name: 'fitsBcrypt' })
export class FitsBcrypt implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && !passwordTooLong(value);
  }

  defaultMessage(): string {
    return `password must be at most ${PASSWORD_MAX_BYTES} bytes (bcrypt)`;
  }
}

class HumanProfileDto {
  @ApiProperty() @IsString() @IsNotBlank() @Bounded(STRING_BOUNDS.givenName) firstName: string;
  @ApiProperty() @IsString() @IsNotBlank() @Bounded(STRING_BOUNDS.familyName) lastName: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Bounded(STRING_BOUNDS.userDisplayName) displayName?: string;

  @ApiPropertyOptional({ example: 'en' })
  @IsOptional()
  @IsString()
  @Bounded(STRING_BOUNDS.preferredLanguage)
  @Matches(LANGUAGE_TAG, { message: 'preferredLanguage must be a language tag such as en or de-CH' })
  preferredLanguage?: string;
}

export class HumanEmailDto {
  @ApiProperty() @IsEmail({}, { message: 'email must be an e-mail address' }) @Bounded(STRING_BOUNDS.email) email: string;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() isEmailVerified?: boolean;
}

export class HumanPhoneDto {
  @ApiProperty({ example: '+41 79 123 45 67' }) @IsString() @IsNotEmpty() @Bounded(STRING_BOUNDS.phone) @Validate(IsPhoneNumber) phone: string;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() isPhoneVerified?: boolean;
}

export class CreateHumanUserDto {
  @UserNameField()
  userName: string;

  // @IsObject: @ValidateNested alone lets a missing value through and accepts an array of any length.
  @ApiProperty({ type: HumanProfileDto }) @IsObject() @ValidateNested() @Type(() => HumanProfileDto) profile: HumanProfileDto;
  @ApiProperty({ type: HumanEmailDto }) @IsObject() @ValidateNested() @Type(() => HumanEmailDto) email: HumanEmailDto;
  @ApiPropertyOptional({ type: HumanPhoneDto }) @IsOptional() @IsObject() @ValidateNested() @Type(() => HumanPhoneDto) phone?: HumanPhoneDto;

  @ApiPropertyOptional({ description: 'initial password; hashed with bcrypt, never returned' })
  @IsOptional()
  @IsString()
  @Validate(FitsBcrypt)
  password?: string;
}

export class CreateMachineUserDto {
  @UserNameField()
  userName: string;

  @ApiProperty() @IsString() @IsNotBlank() @Bounded(STRING_BOUNDS.machineName) name: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Bounded(STRING_BOUNDS.machineDescription) description?: string;

  @ApiPropertyOptional({ enum: ACCESS_TOKEN_TYPES, default: 'opaque' })
  @IsOptional()
  @IsIn(ACCESS_TOKEN_TYPES)
  accessTokenType?: (typeof ACCESS_TOKEN_TYPES)[number];
}

export class UserCreatedDto {
  @ApiProperty() userId: string;
}

export class ExpiringCredentialDto {
  @ApiPropertyOptional({ description: 'ISO 8601; no expiry when absent', example: '2030-01-01T00:00:00Z' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'expirationDate must be an ISO 8601 date-time' })
  expirationDate?: string;
}

export class MachineSecretDto {
  @ApiProperty() clientId: string;
  @ApiProperty({ description: 'shown once' }) clientSecret: string;
}

class MachineKeyDetailsDto {
  @ApiProperty({ example: 'serviceaccount' }) type: 'serviceaccount';
  @ApiProperty() keyId: string;
  @ApiProperty({ description: 'PEM RSA 2048 private key; shown once' }) key: string;
  @ApiProperty() userId: string;
}

export class MachineKeyDto {
  @ApiProperty() keyId: string;
  @ApiProperty({ type: MachineKeyDetailsDto }) keyDetails: MachineKeyDetailsDto;
}

export class PersonalAccessTokenDto {
  @ApiProperty() tokenId: string;
  @ApiProperty({ description: 'shown once' }) token: string;
}
