import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import cluster from 'node:cluster';
import { DataSource } from 'typeorm';
import { Public } from '../auth/authenticated.decorator.js';
import { statementsOf } from '../database/statements.js';
import { DomainError, ErrorCode } from '../errors/domain-error.js';

@ApiTags('health')
@Controller('healthz')
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  /** 200 once the service can serve: migrations applied (before listening) and the database answering. */
  @Get()
  @HttpCode(200)
  @Public()
  async check(): Promise<{ status: 'ok'; worker: number }> {
    try {
      await statementsOf(this.dataSource).rows('SELECT 1', []);
    } catch {
      throw new DomainError(ErrorCode.Unavailable, 'the database is not reachable');
    }
    return { status: 'ok', worker: cluster.worker?.id ?? 0 };
  }
}
