import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ProviderHolder } from '../provider/provider.holder.js';
import { SigningKeysService } from './signing-keys.service.js';

class RotateKeysResponseDto {
  @ApiProperty({ description: 'id (kid) of the key that signs from now on' })
  activeKeyId: string;
}

/** docs/product-rules.md, "API": `POST /admin/v1/keys/rotate` (IAM_OWNER) → `{activeKeyId}`. */
@ApiTags('admin')
@Controller('admin/v1/keys')
export class KeysController {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly holder: ProviderHolder,
  ) {}

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
