import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { CommonModule } from '../../src/common/common.module.js';
import { loadConfig } from '../../src/common/config/config.js';
import type { AppConfig } from '../../src/common/config/config.js';
import { migrate } from '../../src/common/database/migrate.js';
import { UnitOfWork } from '../../src/common/database/unit-of-work.js';
import { BootstrapService } from '../../src/users/bootstrap.service.js';
import { OrganizationEntity } from '../../src/users/entities/organization.entity.js';
import { UserEntity } from '../../src/users/entities/user.entity.js';
import { UsersModule } from '../../src/users/users.module.js';
import { createTestDatabase } from '../support/database.js';
import { ENTITIES } from '../../src/entities.js';

/** The bootstrap admin's password in domain suites (the bootstrap needs one to hash). */
export const ADMIN_PASSWORD = 'domain-admin-password';

export interface StoredEvent {
  type: string;
  aggregateId: string;
  editorUserId: string | null;
  payload: Record<string, unknown>;
}

export interface Domain {
  config: AppConfig;
  dataSource: DataSource;
  uow: UnitOfWork;
  /** Organization `default` and its IAM_OWNER `admin`, as the bootstrap created them. */
  defaultOrgId: string;
  adminId: string;
  /** A provider of the module graph (a service under test). */
  get<T>(type: Type<T>): T;
  /** The events stored for an aggregate, oldest first. */
  eventsOf(aggregateId: string): Promise<StoredEvent[]>;
}

/**
 * The domain tier: the common and users modules (configuration, database, unit of work, event store,
 * crypto, the users services) on a freshly migrated and bootstrapped database (SQLite in a temporary
 * DATA_DIR, or a database of its own on TEST_DATABASE_URL's server), without HTTP, the OIDC provider,
 * SCIM or the admin API. Registers its own before/after hooks; the handle is filled in `before`.
 */
export function useDomain(env: Record<string, string> = {}): Domain {
  const handle = {} as Domain;
  let module: TestingModule | undefined;
  let cleanup = async () => undefined as void;
  before(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-domain-'));
    const database = await createTestDatabase();
    cleanup = async () => {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
    const config = loadConfig({
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      BCRYPT_COST: '4',
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      ...(database.url ? { DATABASE_URL: database.url } : {}),
      ...env,
    });
    await migrate(config.database);
    module = await Test.createTestingModule({ imports: [CommonModule.forRoot(config, ENTITIES), UsersModule] }).compile();
    await module.init();
    await module.get(BootstrapService).bootstrap();
    const dataSource = module.get(DataSource);
    const org = await dataSource.getRepository(OrganizationEntity).findOneByOrFail({ name: 'default' });
    const admin = await dataSource.getRepository(UserEntity).findOneByOrFail({ orgId: org.id, userName: 'admin' });
    const ref = module;
    Object.assign(handle, {
      config,
      dataSource,
      uow: module.get(UnitOfWork),
      defaultOrgId: org.id,
      adminId: admin.id,
      get: <T>(type: Type<T>) => ref.get(type, { strict: false }),
      eventsOf: async (aggregateId: string) => {
        const rows = (await dataSource.query('SELECT type, aggregate_id, editor_user_id, payload FROM events WHERE aggregate_id = ? ORDER BY position', [
          aggregateId,
        ])) as Record<string, unknown>[];
        return rows.map((r) => ({
          type: String(r.type),
          aggregateId: String(r.aggregate_id),
          editorUserId: (r.editor_user_id as string | null) ?? null,
          payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Record<string, unknown>,
        }));
      },
    } satisfies Domain);
  });
  after(async () => {
    await module?.close();
    await cleanup();
  });
  return handle;
}
