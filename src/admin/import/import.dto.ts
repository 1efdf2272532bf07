import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsNotEmpty, IsObject, IsOptional, IsString, Validate, ValidateNested, ValidatorConstraint } from 'class-validator';
import type { ValidatorConstraintInterface } from 'class-validator';
import { parseGoDuration } from './go-duration.parser.js';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';

/**
 * The import request (docs/product-rules.md, "Import and event search"). Only the envelope is validated here: a bad envelope is a 400, while
 * problems of one user are error entries of a 200 response, so `humanUsers` items
 * reach the service as plain JSON and are checked there, user by user (import-user.validator.ts).
 */
@ValidatorConstraint({ name: 'isGoDuration' })
class IsGoDuration implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    const ms = typeof value === 'string' ? parseGoDuration(value) : null;
    return ms !== null && ms > 0;
  }

  defaultMessage(): string {
    return 'timeout must be a positive duration in Go notation, such as 10m, 1m30s or 500ms';
  }
}

class ImportOrgDetailsDto {
  @ApiProperty({ description: 'name of the organization when the import creates it', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @Bounded(STRING_BOUNDS.orgName)
  name: string;
}

export class ImportOrgDto {
  @ApiProperty({ description: 'id of an existing organization, or the id to create it with' })
  @IsOptional()
  @IsString()
  orgId?: string;

  @ApiPropertyOptional({ type: ImportOrgDetailsDto, description: 'used when the organization must be created' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ImportOrgDetailsDto)
  org?: ImportOrgDetailsDto;

  @ApiPropertyOptional({
    description:
      'users: {userId, user: {userName, profile: {firstName, lastName, nickName?, displayName?, preferredLanguage?, gender?}, ' +
      'email: {email, isEmailVerified?}, phone?: {phone, isPhoneVerified?}, hashedPassword?: {value}, password?, passwordChangeRequired?}}',
    type: 'array',
    items: { type: 'object' },
  })
  @IsOptional()
  @IsArray()
  humanUsers?: unknown[];
}

class ImportDataOrgsDto {
  @ApiProperty({ type: [ImportOrgDto] })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ImportOrgDto)
  orgs: ImportOrgDto[];
}

export class ImportRequestDto {
  @ApiProperty({ type: ImportDataOrgsDto })
  @IsObject()
  @ValidateNested()
  @Type(() => ImportDataOrgsDto)
  dataOrgs: ImportDataOrgsDto;

  @ApiPropertyOptional({ default: '5m', example: '1m30s', description: 'Go duration; the import stops at a user boundary when it runs out' })
  @IsOptional()
  @IsString()
  @Validate(IsGoDuration)
  timeout?: string;
}

class ImportedOrgDto {
  @ApiProperty() orgId: string;
  @ApiProperty({ type: [String] }) humanUserIds: string[];
}

class ImportSuccessDto {
  @ApiProperty({ type: [ImportedOrgDto] }) orgs: ImportedOrgDto[];
}

export class ImportErrorDto {
  @ApiProperty({ enum: ['org', 'user', 'timeout'] }) type: 'org' | 'user' | 'timeout';
  @ApiProperty({ description: 'organization or user id the entry is about' }) id: string;
  @ApiProperty() message: string;
}

export class ImportResponseDto {
  @ApiProperty({ type: ImportSuccessDto }) success: ImportSuccessDto;
  @ApiProperty({ type: [ImportErrorDto] }) errors: ImportErrorDto[];
}
