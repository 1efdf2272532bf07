import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import cluster from 'node:cluster';
import { DataSource } from 'typeorm';
import { Public } from '../auth/authenticated.decorator.js';
import { statementsOf } from '../database/statements.js';
import { DomainError, ErrorCode } from '../errors/domain-error.js';

class HealthDto {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ description: 'the cluster worker that answered (0: not clustered)' }) worker: number;
}

@ApiTags('health')
@Controller('healthz')
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  /** 200 once the service can serve: migrations applied (before listening) and the database answering. */
  @Get()
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Readiness probe', description: 'No token needed.' })
  @ApiOkResponse({ type: HealthDto })
  @ApiServiceUnavailableResponse({ description: 'the database is not reachable' })
  async check(): Promise<HealthDto> {
    try {
      await statementsOf(this.dataSource).rows('SELECT 1', []);
    } catch {
      throw new DomainError(ErrorCode.Unavailable, 'the database is not reachable');
    }
    return { status: 'ok', worker: cluster.worker?.id ?? 0 };
  }
}
