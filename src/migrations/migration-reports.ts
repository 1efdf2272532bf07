import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { DomainError } from '../common/errors/domain-error.js';
import type { MigrationListDto, MigrationReportDto } from './api/migrations.dto.js';
import { MigrationRunEntity } from './migration-run.entity.js';

/** The stored reports of migration runs: what each run did, never a secret. */
@Injectable()
export class MigrationReports {
  constructor(private readonly dataSource: DataSource) {}

  async list(limit = 100, offset = 0): Promise<MigrationListDto> {
    const [runs, total] = await this.dataSource.getRepository(MigrationRunEntity).findAndCount({
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
      skip: offset,
    });
    return { migrations: runs.map((run) => run.report as unknown as MigrationReportDto), total };
  }

  async get(migrationId: string): Promise<MigrationReportDto> {
    const run = await this.dataSource.getRepository(MigrationRunEntity).findOneBy({ id: migrationId });
    // MariaDB's utf8mb4_bin is PAD SPACE: `id = 'x '` finds `x`. Only the exact id names the run.
    if (!run || run.id !== migrationId) throw DomainError.notFound('migration');
    return run.report as unknown as MigrationReportDto;
  }
}
