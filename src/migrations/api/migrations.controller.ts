import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { ListPageQueryDto } from '../../common/http/validation/list-page.dto.js';
import { MigrationRunner } from '../migration-runner.service.js';
import { MigrationReports } from '../migration-reports.js';
import type { MigrationInput } from '../migration-input.js';
import { MigrationBody } from './migration-body.decorator.js';
import { MigrationListDto, MigrationReportDto, MigrationRequestDto } from './migrations.dto.js';

/** Moving in from another identity service (docs/migrating.md); only an IAM_OWNER runs or reads a migration. */
@ApiTags('admin')
@Controller('admin/v1/migrations')
export class MigrationsController {
  constructor(
    private readonly runner: MigrationRunner,
    private readonly reports: MigrationReports,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Migrate an export of another identity service',
    description: 'A fault in the document is a 400 naming its path, and nothing is written; conflicts with the instance are listed failures.',
  })
  @ApiBody({ type: MigrationRequestDto })
  @ApiOkResponse({ type: MigrationReportDto })
  @ApiPayloadTooLargeResponse({ description: 'the body exceeds IMPORT_BODY_LIMIT_BYTES' })
  @Authenticated({ role: Role.IamOwner })
  async run(@Caller() caller: Principal, @MigrationBody() input: MigrationInput): Promise<MigrationReportDto> {
    try {
      return await this.runner.run(caller.userId, input);
    } finally {
      await input.close();
    }
  }

  @Get()
  @ApiOperation({ summary: 'List migration runs, newest first' })
  @ApiOkResponse({ type: MigrationListDto })
  @Authenticated({ role: Role.IamOwner })
  list(@Query() query: ListPageQueryDto): Promise<MigrationListDto> {
    return this.reports.list(query.limit, query.offset);
  }

  @Get(':migrationId')
  @ApiOperation({ summary: 'Read the report of a migration run' })
  @ApiOkResponse({ type: MigrationReportDto })
  @ApiNotFoundResponse({ description: 'no such migration run' })
  @Authenticated({ role: Role.IamOwner })
  get(@Param('migrationId') migrationId: string): Promise<MigrationReportDto> {
    return this.reports.get(migrationId);
  }
}
