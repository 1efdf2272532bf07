import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString, ValidateNested } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';
import { RESOURCE_SCOPE_BOUNDS } from '../../users/api-resource.rules.js';
import type { ResourceScope } from '../../users/entities/application.entity.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';

/** A scope an API application defines for its resource (docs/agents.md, "Resources"). */
export class ResourceScopeDto implements ResourceScope {
  @ApiProperty({ maxLength: RESOURCE_SCOPE_BOUNDS.name, example: 'files:read', description: 'an RFC 6749 §3.3 scope-token' })
  @IsString()
  @Bounded(RESOURCE_SCOPE_BOUNDS.name)
  name: string;

  @ApiProperty({ maxLength: RESOURCE_SCOPE_BOUNDS.description, example: 'Read your files', description: 'what the scope allows, as people are told' })
  @IsString()
  @IsNotBlank()
  @Bounded(RESOURCE_SCOPE_BOUNDS.description)
  description: string;
}

/** An API application as a resource server (RFC 8707), in create and `PATCH` alike. */
export class ApiResourceFieldsDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: STRING_BOUNDS.resourceUri,
    example: 'https://mcp.example.com/mcp',
    description:
      'API applications: the resource indicator clients ask tokens for (RFC 8707), unique in the instance; https (http only on loopback), no fragment; null: none',
  })
  @IsOptional()
  @IsString()
  @Bounded(STRING_BOUNDS.resourceUri)
  resourceUri?: string | null;

  @ApiPropertyOptional({
    type: [ResourceScopeDto],
    description: "API applications: the resource's own scopes; tokens for it carry only these and the OIDC ones",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(RESOURCE_SCOPE_BOUNDS.count)
  @ValidateNested({ each: true })
  @Type(() => ResourceScopeDto)
  scopes?: ResourceScopeDto[];
}
