import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsInt, IsObject, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { MAX_FAILURES, MAX_HISTORY_COUNT, MAX_LOCK_SECONDS, MAX_PASSWORD_AGE_DAYS } from './settings.rules.js';
import { MAX_TOKEN_SECONDS, MIN_TOKEN_SECONDS } from './settings.values.js';

/** Not sent leaves a field as it is; null is no value, so it is refused rather than stored. */
const unlessAbsent = ValidateIf((_: object, value: unknown) => value !== undefined);

const seconds = (description: string) => [
  ApiPropertyOptional({
    description: `${description}, in seconds (${MIN_TOKEN_SECONDS} to ${MAX_TOKEN_SECONDS})`,
    minimum: MIN_TOKEN_SECONDS,
    maximum: MAX_TOKEN_SECONDS,
  }),
  unlessAbsent,
  IsInt(),
  Min(MIN_TOKEN_SECONDS),
  Max(MAX_TOKEN_SECONDS),
];

/** Token lifetimes; in an application's body each is at most the instance's. */
export class TokenLifetimesPatchDto {
  @applyDecorators(...seconds('access tokens')) accessTokenSeconds?: number;
  @applyDecorators(...seconds('ID tokens')) idTokenSeconds?: number;
  @applyDecorators(...seconds('a refresh token unused for this long expires')) refreshIdleSeconds?: number;
  @applyDecorators(...seconds('a refresh token chain ends this long after sign-in')) refreshAbsoluteSeconds?: number;
}

const count = (description: string, min: number, max: number) => [
  ApiPropertyOptional({ description, minimum: min, maximum: max }),
  unlessAbsent,
  IsInt(),
  Min(min),
  Max(max),
];
const flag = (description: string) => [ApiPropertyOptional({ description }), unlessAbsent, IsBoolean()];

export class PasswordPolicyPatchDto {
  @applyDecorators(...count('at least this many characters', 1, 72)) minLength?: number;
  @applyDecorators(...count('at most this many characters (bcrypt reads 72 bytes)', 1, 72)) maxLength?: number;
  @applyDecorators(...flag('a lowercase letter is required')) requireLower?: boolean;
  @applyDecorators(...flag('an uppercase letter is required')) requireUpper?: boolean;
  @applyDecorators(...flag('a digit is required')) requireDigit?: boolean;
  @applyDecorators(...flag('a character other than a letter or digit is required')) requireSymbol?: boolean;
  @applyDecorators(...count('a new password may equal none of the last this many, the current one included (0: any)', 0, MAX_HISTORY_COUNT))
  historyCount?: number;
  @applyDecorators(...count('days after which a password sign-in asks for a new password (0: never)', 0, MAX_PASSWORD_AGE_DAYS)) maxAgeDays?: number;
}

export class LockoutPatchDto {
  @applyDecorators(...count('failed password checks that lock a human user (0: never)', 0, MAX_FAILURES)) maxPasswordFailures?: number;
  @applyDecorators(...count('failed password and second-factor checks that lock a human user at a second factor (0: never)', 0, MAX_FAILURES))
  maxFactorFailures?: number;
  @applyDecorators(...count('seconds after which a lock by failed checks ends by itself (0: when an administrator unlocks)', 0, MAX_LOCK_SECONDS))
  lockSeconds?: number;
}

export class RegistrationPatchDto {
  @applyDecorators(...flag('whether a new organization offers self-registration (its login policy can change it later)')) defaultForNewOrganizations?: boolean;
}

const section = <T>(type: new () => T) => [ApiPropertyOptional({ type }), unlessAbsent, IsObject(), ValidateNested(), Type(() => type)];

/** PATCH: every section and field is optional; what is not sent keeps its value. */
export class SettingsPatchDto {
  @applyDecorators(...section(TokenLifetimesPatchDto)) tokens?: TokenLifetimesPatchDto;
  @applyDecorators(...section(PasswordPolicyPatchDto)) passwordPolicy?: PasswordPolicyPatchDto;
  @applyDecorators(...section(LockoutPatchDto)) lockout?: LockoutPatchDto;
  @applyDecorators(...section(RegistrationPatchDto)) registration?: RegistrationPatchDto;
}

export class TokenLifetimesDto {
  @ApiProperty() accessTokenSeconds: number;
  @ApiProperty() idTokenSeconds: number;
  @ApiProperty() refreshIdleSeconds: number;
  @ApiProperty() refreshAbsoluteSeconds: number;
}

export class PasswordPolicyDto {
  @ApiProperty() minLength: number;
  @ApiProperty() maxLength: number;
  @ApiProperty() requireLower: boolean;
  @ApiProperty() requireUpper: boolean;
  @ApiProperty() requireDigit: boolean;
  @ApiProperty() requireSymbol: boolean;
  @ApiProperty() historyCount: number;
  @ApiProperty() maxAgeDays: number;
}

export class LockoutDto {
  @ApiProperty() maxPasswordFailures: number;
  @ApiProperty() maxFactorFailures: number;
  @ApiProperty({ description: 'seconds a lock by failed checks lasts; 0: until an administrator unlocks' }) lockSeconds: number;
}

export class RegistrationDto {
  @ApiProperty() defaultForNewOrganizations: boolean;
}

export class SettingsDto {
  @ApiProperty({ type: TokenLifetimesDto }) tokens: TokenLifetimesDto;
  @ApiProperty({ type: PasswordPolicyDto }) passwordPolicy: PasswordPolicyDto;
  @ApiProperty({ type: LockoutDto }) lockout: LockoutDto;
  @ApiProperty({ type: RegistrationDto }) registration: RegistrationDto;
}

/** Not sent keeps a lifetime; null gives it back to the instance's. */
const unlessAbsentOrNull = ValidateIf((_: object, value: unknown) => value !== undefined && value !== null);

const ownSeconds = (description: string) => [
  ApiPropertyOptional({
    type: Number,
    nullable: true,
    description: `${description}, in seconds (${MIN_TOKEN_SECONDS} to ${MAX_TOKEN_SECONDS}, at most the instance's; null: the instance's)`,
    minimum: MIN_TOKEN_SECONDS,
    maximum: MAX_TOKEN_SECONDS,
  }),
  unlessAbsentOrNull,
  IsInt(),
  Min(MIN_TOKEN_SECONDS),
  Max(MAX_TOKEN_SECONDS),
];

/** An application's own token lifetimes (docs/operations.md, "Settings"). */
export class AppTokenLifetimesDto {
  @applyDecorators(...ownSeconds('access tokens')) accessTokenSeconds?: number | null;
  @applyDecorators(...ownSeconds('ID tokens')) idTokenSeconds?: number | null;
  @applyDecorators(...ownSeconds('a refresh token unused for this long expires')) refreshIdleSeconds?: number | null;
  @applyDecorators(...ownSeconds('a refresh token chain ends this long after sign-in')) refreshAbsoluteSeconds?: number | null;
}

/** The `tokens` field of an application's create and change bodies. */
export class AppTokensFieldDto {
  @applyDecorators(...section(AppTokenLifetimesDto)) tokens?: AppTokenLifetimesDto;
}
