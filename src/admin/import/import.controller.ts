import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ImportBody } from './import-body.decorator.js';
import { ImportRequestDto, ImportResponseDto } from './import.dto.js';
import { ImportService } from './import.service.js';

@ApiTags('admin')
@Controller('admin/v1/import')
export class ImportController {
  constructor(private readonly imports: ImportService) {}

  /** docs/product-rules.md, "Import and event search": 200 with successes and error entries, even when some users or organizations failed. */
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import organizations and users',
    description: 'Answers 200 with the successes and an error entry per failed organization or user.',
  })
  @Authenticated({ role: Role.IamOwner })
  @ApiBody({ type: ImportRequestDto })
  @ApiOkResponse({ type: ImportResponseDto })
  @ApiPayloadTooLargeResponse({ description: 'the body exceeds IMPORT_BODY_LIMIT_BYTES' })
  import(@Caller() caller: Principal, @ImportBody() dto: ImportRequestDto): Promise<ImportResponseDto> {
    return this.imports.import(caller.userId, dto);
  }
}
