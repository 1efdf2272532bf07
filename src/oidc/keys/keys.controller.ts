import { Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ProviderHolder } from '../provider/provider.holder.js';
import { SigningKeysService } from './signing-keys.service.js';
import { ListPageQueryDto, pageOfList } from '../../common/http/validation/list-page.dto.js';

class RotateKeysResponseDto {
  @ApiProperty({ description: 'id (kid) of the key that signs from now on' })
  activeKeyId: string;
}

class SigningKeyDto {
  @ApiProperty({ description: 'the key id (kid)' }) keyId: string;
  @ApiProperty({ example: 'RS256' }) alg: string;
  @ApiProperty({ enum: ['active', 'next', 'retired'], description: 'active signs now; next is published ahead of signing; retired signed before' })
  status: 'active' | 'next' | 'retired';
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

class SigningKeyListDto {
  @ApiProperty({ type: [SigningKeyDto] }) keys: SigningKeyDto[];
  @ApiProperty({ description: 'how many keys there are (every list of the API carries it)' }) total: number;
}

/**
 * docs/product-rules.md, "API": `GET /admin/v1/keys` → `{keys:[{keyId, alg, status, createdAt}], total}` (never key
 * material) and `POST /admin/v1/keys/rotate` → `{activeKeyId}`, both IAM_OWNER.
 */
@ApiTags('admin')
@Controller('admin/v1/keys')
export class KeysController {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly holder: ProviderHolder,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List the signing keys and their status (no key material)' })
  @ApiOkResponse({ type: SigningKeyListDto })
  @Authenticated({ role: Role.IamOwner })
  async list(@Query() query: ListPageQueryDto): Promise<SigningKeyListDto> {
    const { items, total } = pageOfList(await this.keys.describe(), query);
    return { keys: items.map((k) => ({ ...k, createdAt: k.createdAt.toISOString() })), total };
  }

  @Post('rotate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Rotate the signing key' })
  @Authenticated({ role: Role.IamOwner })
  @ApiOkResponse({ type: RotateKeysResponseDto })
  async rotate(@Caller() caller: Principal): Promise<RotateKeysResponseDto> {
    const activeKeyId = await this.keys.rotate(caller.userId);
    // This process switches at once; the others at their next poll (ProviderHolder).
    await this.holder.refresh();
    return { activeKeyId };
  }
}
