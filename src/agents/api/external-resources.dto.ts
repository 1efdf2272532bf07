import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsString } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { IsNotBlank } from '../../common/http/validation/not-blank.decorator.js';

export class AddExternalResourceDto {
  @ApiProperty({ example: 'Files MCP server' }) @IsString() @IsNotBlank() @Bounded(200) name: string;

  @ApiProperty({ example: 'https://as.files.example', description: "the issuer of the resource's authorization server (the ID-JAG's aud)" })
  @IsString()
  @Bounded(2000)
  issuer: string;

  @ApiProperty({ example: 'https://files.example/mcp', description: "the resource indicator (RFC 8707) of the resource (the ID-JAG's resource)" })
  @IsString()
  @Bounded(2000)
  resource: string;

  @ApiProperty({ type: [String], example: ['files:read'], description: 'the scopes an ID-JAG for it may carry (RFC 6749 §3.3 scope-tokens)' })
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Bounded(200, { each: true })
  scopes: string[];

  @ApiProperty({ description: "the requesting client's id at that authorization server (the ID-JAG's client_id)" })
  @IsString()
  @IsNotBlank()
  @Bounded(255)
  clientIdAtIssuer: string;

  @ApiProperty({ description: 'the project whose granted people may get ID-JAGs for it (docs/product-rules.md, "Application access")' })
  @IsString()
  @IsNotBlank()
  @Bounded(64)
  projectId: string;
}

export class ExternalResourceDto {
  @ApiProperty() id: string;
  @ApiProperty() name: string;
  @ApiProperty() issuer: string;
  @ApiProperty() resource: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty() clientIdAtIssuer: string;
  @ApiProperty() projectId: string;
  @ApiProperty() createdAt: string;
}

export class ExternalResourceListDto {
  @ApiProperty({ type: [ExternalResourceDto] }) externalResources: ExternalResourceDto[];
  @ApiProperty() total: number;
}
