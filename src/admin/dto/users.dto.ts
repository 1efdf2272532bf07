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
  MaxLength,
  Validate,
  ValidateNested,
  ValidatorConstraint,
} from 'class-validator';
import type { ValidatorConstraintInterface } from 'class-validator';
import { normalizePhone } from '../../users/phone.js';
import { PASSWORD_MAX_BYTES, passwordTooLong } from '../../users/rules/password-policy.js';
import { ACCESS_TOKEN_TYPES } from './projects.dto.js';
import { IsNotBlank } from './not-blank.decorator.js';

const USER_NAME = /^[^\s\u0000-\u001f]+$/;

/** A login name: 1–255 characters, no white space or control characters. */
export function UserNameField({ required = true } = {}): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ maxLength: 255, required }),
    IsString(),
    IsNotEmpty(),
    MaxLength(255),
    Matches(USER_NAME, { message: 'userName must not contain white space or control characters' }),
  );
}
export const LANGUAGE_TAG = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

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
  @ApiProperty() @IsString() @IsNotBlank() @MaxLength(200) firstName: string;
  @ApiProperty() @IsString() @IsNotBlank() @MaxLength(200) lastName: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(255) displayName?: string;

  @ApiPropertyOptional({ example: 'en' })
  @IsOptional()
  @IsString()
  @Matches(LANGUAGE_TAG, { message: 'preferredLanguage must be a language tag such as en or de-CH' })
  preferredLanguage?: string;
}

export class HumanEmailDto {
  @ApiProperty() @IsEmail({}, { message: 'email must be an e-mail address' }) @MaxLength(320) email: string;
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() isEmailVerified?: boolean;
}

export class HumanPhoneDto {
  @ApiProperty({ example: '+41 79 123 45 67' }) @IsString() @IsNotEmpty() @MaxLength(40) @Validate(IsPhoneNumber) phone: string;
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

  @ApiProperty() @IsString() @IsNotBlank() @MaxLength(255) name: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(500) description?: string;

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
