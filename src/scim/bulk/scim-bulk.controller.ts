import { All, Body, Controller, HttpCode, Param, Post, Res, UseFilters, UseGuards } from '@nestjs/common';
import type { Response } from 'express';
import { RETRY_AFTER_SECONDS } from '../../common/http/error-headers.js';
import { ApiExcludeController } from '@nestjs/swagger';
import { Authenticated, Public } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ScimError } from '../errors/scim-error.js';
import { ScimExceptionFilter } from '../errors/scim-exception.filter.js';
import { ScimOrgGuard } from '../http/scim-org.guard.js';
import { BULK_RESPONSE_SCHEMA } from '../scim.constants.js';
import { readBulkRequest } from './scim-bulk.request.js';
import { ScimBulkService } from './scim-bulk.service.js';

@ApiExcludeController()
@Controller('scim/v2/:orgId')
@UseFilters(ScimExceptionFilter)
@UseGuards(ScimOrgGuard)
export class ScimBulkController {
  constructor(private readonly bulk: ScimBulkService) {}

  @Post('Bulk')
  @HttpCode(200)
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async run(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() body: unknown, @Res({ passthrough: true }) res: Response) {
    const operations = await this.bulk.run(caller.userId, orgId, readBulkRequest(body));
    // An operation answered 503 (the password pool was full) is worth retrying: say when (RFC 9110 §10.2.3).
    if (operations.some((operation) => operation.status === '503')) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    return { schemas: [BULK_RESPONSE_SCHEMA], Operations: operations };
  }

  @All('Bulk')
  @Public()
  methodNotAllowed(): never {
    throw ScimError.methodNotAllowed('POST', 'only POST is allowed on /Bulk (RFC 7644 §3.7)');
  }
}
