import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsBoolean, IsOptional } from 'class-validator';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { SamlKeysService } from './saml-keys.service.js';
import type { SamlKeyStatus } from './saml-keys.service.js';
import { ListPageQueryDto, pageOfList } from '../../common/http/validation/list-page.dto.js';

class RotateSamlKeyDto {
  @ApiPropertyOptional({
    description:
      'sign with the new key at once and withdraw the old one from the metadata (a compromised key); default: the new key signs in 24 hours, both are in the metadata meanwhile',
  })
  @IsOptional()
  @IsBoolean()
  immediately?: boolean;
}

class RotatedSamlKeyDto {
  @ApiProperty({ description: 'the new key: the SHA-256 thumbprint of its certificate, hex' }) keyId: string;
  @ApiProperty({ format: 'date-time', description: 'when it starts signing' }) signsFrom: string;
}

class SamlKeyDto {
  @ApiProperty({ description: 'the SHA-256 thumbprint of the certificate, hex' }) keyId: string;
  @ApiProperty({
    enum: ['active', 'next', 'retired'],
    description: 'active signs now; next is in the metadata ahead of signing; retired signed before and is still in the metadata',
  })
  status: SamlKeyStatus;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) signsFrom: string;
  @ApiProperty({ format: 'date-time', description: "the certificate's notAfter" }) notAfter: string;
}

class SamlKeyListDto {
  @ApiProperty({ type: [SamlKeyDto] }) keys: SamlKeyDto[];
  @ApiProperty({ description: 'how many keys there are (every list of the API carries it)' }) total: number;
}

/** The instance's SAML signing keys (docs/saml.md, "Signing keys"): listed without key material and rotated, IAM_OWNER only. */
@ApiTags('admin')
@Controller('admin/v1/saml/keys')
export class SamlKeysController {
  constructor(private readonly keys: SamlKeysService) {}

  @Get()
  @ApiOperation({ summary: 'List the SAML signing keys in the metadata and their status (no key material)' })
  @ApiOkResponse({ type: SamlKeyListDto })
  @Authenticated({ role: Role.IamOwner })
  async list(@Query() query: ListPageQueryDto): Promise<SamlKeyListDto> {
    await this.keys.publishedCertificates();
    const { items, total } = pageOfList(await this.keys.describe(), query);
    return {
      keys: items.map((k) => ({ ...k, createdAt: k.createdAt.toISOString(), signsFrom: k.signsFrom.toISOString(), notAfter: k.notAfter.toISOString() })),
      total,
    };
  }

  @Post('rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Rotate the SAML signing key' })
  @ApiOkResponse({ type: RotatedSamlKeyDto })
  @Authenticated({ role: Role.IamOwner })
  async rotate(@Caller() caller: Principal, @Body() dto: RotateSamlKeyDto): Promise<RotatedSamlKeyDto> {
    const { keyId, signsFrom } = await this.keys.rotate(caller.userId, dto.immediately ?? false);
    return { keyId, signsFrom: signsFrom.toISOString() };
  }
}
