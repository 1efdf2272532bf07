import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../../src/common/config/config.js';
import { createDataSource } from '../../../src/common/database/data-source.js';
import { migrate } from '../../../src/common/database/migrate.js';
import { ApplicationEntity } from '../../../src/users/entities/application.entity.js';
import { INSTANCE_ID, InstanceEntity } from '../../../src/users/entities/instance.entity.js';
import { MachineSecretEntity } from '../../../src/users/entities/machine-secret.entity.js';
import { OrganizationEntity } from '../../../src/users/entities/organization.entity.js';
import { ProjectEntity } from '../../../src/users/entities/project.entity.js';
import { PublicKeyEntity } from '../../../src/users/entities/public-key.entity.js';
import { UserEntity } from '../../../src/users/entities/user.entity.js';
import { createTestDatabase } from '../../support/database.js';
import { ENTITIES } from '../../../src/entities.js';

/**
 * A fresh migrated database without the service: SQLite in a temporary directory, or a database of its
 * own on TEST_DATABASE_URL's MariaDB, for the users domain's query functions. Rows are inserted
 * through the entities, with defaults a test overrides where it matters (an application gets a project
 * of its own: the schema's foreign keys hold).
 */
export interface QueryDatabase {
  dataSource: DataSource;
  org(values?: Partial<OrganizationEntity>): Promise<OrganizationEntity>;
  user(org: OrganizationEntity, values?: Partial<UserEntity>): Promise<UserEntity>;
  application(org: OrganizationEntity, values?: Partial<ApplicationEntity>): Promise<ApplicationEntity>;
  publicKey(values: Pick<PublicKeyEntity, 'ownerType' | 'ownerId' | 'orgId'> & Partial<PublicKeyEntity>): Promise<PublicKeyEntity>;
  machineSecret(userId: string, secretHash: string): Promise<void>;
  instance(values?: Partial<InstanceEntity>): Promise<void>;
  close(): Promise<void>;
}

export async function openQueryDatabase(): Promise<QueryDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-queries-'));
  const database = await createTestDatabase();
  const config = loadConfig({ DATA_DIR: dataDir, ...(database.url ? { DATABASE_URL: database.url } : {}) });
  await migrate(config.database);
  const dataSource = await createDataSource(config.database, ENTITIES).initialize();
  const now = new Date(Math.floor(Date.now() / 1000) * 1000);
  const insert = async <T extends object>(entity: new () => T, values: T): Promise<T> => {
    await dataSource.getRepository(entity).insert(values as never);
    return values;
  };
  return {
    dataSource,
    org: (values = {}) =>
      insert(OrganizationEntity, {
        id: randomUUID(),
        name: `org-${randomUUID()}`,
        primaryDomain: `${randomUUID()}.example.test`,
        createdAt: now,
        changedAt: now,
        ...values,
      } as OrganizationEntity),
    user: (org, values = {}) => {
      const userName = values.userName ?? `user-${randomUUID()}`;
      return insert(UserEntity, {
        id: randomUUID(),
        orgId: org.id,
        type: 'human',
        userName,
        userNameLower: userName.toLowerCase(),
        state: 'active',
        emailVerified: false,
        phoneVerified: false,
        passwordChangeRequired: false,
        failedPasswordChecks: 0,
        version: 1,
        createdAt: now,
        changedAt: now,
        ...values,
      } as UserEntity);
    },
    application: async (org, values = {}) => {
      const project = await insert(ProjectEntity, { id: randomUUID(), orgId: org.id, name: 'project', createdAt: now, changedAt: now } as ProjectEntity);
      return insert(ApplicationEntity, {
        id: randomUUID(),
        orgId: org.id,
        projectId: project.id,
        name: 'app',
        kind: 'oidc',
        clientId: `client-${randomUUID()}`,
        clientSecretHash: null,
        authMethod: 'client_secret_basic',
        redirectUris: ['https://rp.example.test/cb'],
        postLogoutRedirectUris: [],
        responseTypes: ['code'],
        grantTypes: ['authorization_code'],
        accessTokenType: 'opaque',
        idTokenUserinfoAssertion: false,
        apiAccess: false,
        devMode: false,
        createdAt: now,
        changedAt: now,
        ...values,
      } as ApplicationEntity);
    },
    publicKey: (values) =>
      insert(PublicKeyEntity, { id: randomUUID(), publicKey: '-----BEGIN PUBLIC KEY-----', expiresAt: null, createdAt: now, ...values } as PublicKeyEntity),
    machineSecret: async (userId, secretHash) => void (await insert(MachineSecretEntity, { userId, secretHash, createdAt: now } as MachineSecretEntity)),
    instance: async (values = {}) =>
      void (await insert(InstanceEntity, {
        id: INSTANCE_ID,
        defaultLanguage: 'en',
        lockoutMaxAttempts: 5,
        passwordMinLength: 8,
        accessTokenLifetime: 3600,
        idTokenLifetime: 3600,
        refreshTokenIdleLifetime: 86_400,
        refreshTokenAbsoluteLifetime: 864_000,
        createdAt: now,
        ...values,
      } as InstanceEntity)),
    close: async () => {
      await dataSource.destroy();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
