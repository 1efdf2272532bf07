import { chmodSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import cluster from 'node:cluster';
import { join } from 'node:path';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Role } from '../common/auth/roles.js';
import { ownerOnlyDir } from '../common/fs/owner-only.js';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { PasswordHasher } from '../common/crypto/password-hasher.js';
import { SecretHasher, generateSecret } from '../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { newId } from '../common/ids.js';
import { InstanceEntity, INSTANCE_ID } from './entities/instance.entity.js';
import { PersonalAccessTokenEntity } from './entities/personal-access-token.entity.js';
import { MembershipsService } from './memberships.service.js';
import { OrganizationEntity } from './entities/organization.entity.js';
import { NO_PROFILES, ProjectsService } from './projects.service.js';
import { isUniqueViolation } from '../common/database/unique-violation.js';
import { OrganizationsService } from './organizations.service.js';
import { UsersService } from './users.service.js';

/** An instance younger than this may still be having its files written by the process that made it. */
const FRESH_INSTANCE_MS = 60_000;
/** How long another process's files are waited for at most. */
const FILES_WAIT_MS = 10_000;

/** Client id of the bootstrap's first-party application, the console (README, SECURITY.md). */
export const CONSOLE_CLIENT_ID = 'console';

/** Instance defaults of docs/product-rules.md, "Domain". Lifetimes in seconds. */
const INSTANCE_DEFAULTS = {
  defaultLanguage: 'en',
  lockoutMaxAttempts: 10,
  passwordMinLength: 8,
  accessTokenLifetime: 12 * 3600,
  idTokenLifetime: 12 * 3600,
  refreshTokenIdleLifetime: 30 * 86400,
  refreshTokenAbsoluteLifetime: 90 * 86400,
};

/**
 * First start on an empty database (docs/product-rules.md, "Running it"): the instance, organization `default`, the human
 * `admin` and the machine `admin-client`, both IAM_OWNER. Idempotent: a bootstrapped instance is left
 * alone, and concurrent starts settle on one winner (the instance row's primary key).
 */
@Injectable()
export class BootstrapService {
  private readonly logger = new Logger(BootstrapService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly orgs: OrganizationsService,
    private readonly users: UsersService,
    private readonly memberships: MembershipsService,
    private readonly passwords: PasswordHasher,
    private readonly hasher: SecretHasher,
    private readonly projects: ProjectsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async bootstrap(): Promise<void> {
    if (!(await this.isBootstrapped())) await this.bootstrapInstance();
    else await this.awaitAnotherProcessFiles();
    await this.ensureConsole();
  }

  /**
   * The workers of one start (WORKERS > 1) share DATA_DIR, and one of them bootstraps: its files follow its commit by
   * moments. The others wait for admin.pat before they answer, so that no process of the start serves while the file
   * an operator reads next is missing (docs/operations.md, "Start-up"). Only in a worker (processes on other hosts
   * have DATA_DIRs of their own, where the file never comes), only for an instance made in the last minute.
   */
  private async awaitAnotherProcessFiles(): Promise<void> {
    if (!cluster.isWorker) return;
    const instance = await this.dataSource.getRepository(InstanceEntity).findOneBy({ id: INSTANCE_ID });
    if (!instance || Date.now() - instance.createdAt.getTime() > FRESH_INSTANCE_MS) return;
    const pat = join(this.config.dataDir, 'admin.pat');
    const deadline = Date.now() + FILES_WAIT_MS;
    while (!existsSync(pat) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  /**
   * The console: the instance's first-party application (apiAccess), a public client with PKCE in
   * organization `default`, client id `console`. Also created for an instance bootstrapped before it
   * existed; concurrent starts settle on one (the client id is unique). An existing one gains the current
   * PUBLIC_URL's redirect URIs, so moving the instance does not lock the console out.
   */
  private async ensureConsole(): Promise<void> {
    const base = this.config.publicUrl.replace(/\/$/, '');
    const url = new URL(base);
    const devMode = url.protocol === 'http:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    try {
      await this.uow.run(async (manager) => {
        const org = await manager.findOneBy(OrganizationEntity, { name: 'default' });
        if (!org) return;
        await this.projects.ensureFirstPartyApplicationIn(manager, org.id, 'Portcullis', CONSOLE_CLIENT_ID, {
          name: 'Portcullis console',
          redirectUris: [`${base}/console/callback`],
          postLogoutRedirectUris: [`${base}/console/`],
          responseTypes: ['code'],
          grantTypes: ['authorization_code', 'refresh_token'],
          authMethod: 'none',
          accessTokenType: 'opaque',
          idTokenUserinfoAssertion: false,
          devMode,
          apiAccess: true,
          ...NO_PROFILES,
        });
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }

  private async bootstrapInstance(): Promise<void> {
    const generated = this.config.bootstrapAdminPassword === undefined;
    const password = this.config.bootstrapAdminPassword ?? generateSecret(18);
    const passwordHash = await this.passwords.hash(password);
    const pat = generateSecret();
    try {
      await this.uow.run(async (manager) => {
        await manager.insert(InstanceEntity, { id: INSTANCE_ID, ...INSTANCE_DEFAULTS, createdAt: new Date() });
        const org = await this.orgs.insert(manager, null, 'default');
        const admin = await this.users.insertHuman(manager, null, org.id, newId(), {
          userName: 'admin',
          firstName: 'Portcullis',
          lastName: 'Admin',
          preferredLanguage: INSTANCE_DEFAULTS.defaultLanguage,
          email: `admin@${org.primaryDomain}`,
          isEmailVerified: true,
          phone: null,
          passwordHash,
        });
        await this.memberships.grant(manager, null, admin, 'instance', INSTANCE_ID, [Role.IamOwner]);
        const client = await this.users.insertMachine(manager, null, org.id, newId(), {
          userName: 'admin-client',
          name: 'Portcullis admin client',
          description: 'Created at bootstrap; its personal access token is in admin.pat',
        });
        await this.memberships.grant(manager, null, client, 'instance', INSTANCE_ID, [Role.IamOwner]);
        await manager.insert(PersonalAccessTokenEntity, {
          id: newId(),
          userId: client.id,
          orgId: org.id,
          tokenHash: this.hasher.hash(pat),
          expiresAt: null,
          createdAt: new Date(),
        });
      });
    } catch (error) {
      // Another process bootstrapped at the same moment: theirs stands.
      if (await this.isBootstrapped()) return this.awaitAnotherProcessFiles();
      throw error;
    }
    // admin.pat last: the other processes of this start wait for it.
    if (generated) writeSecretFile(this.config.dataDir, 'admin.password', password);
    writeSecretFile(this.config.dataDir, 'admin.pat', pat);
    this.logger.log(
      `instance bootstrapped; the admin client's token is in ${join(this.config.dataDir, 'admin.pat')}` +
        (generated ? `, the admin password in ${join(this.config.dataDir, 'admin.password')}` : ''),
    );
  }

  private async isBootstrapped(): Promise<boolean> {
    return this.dataSource.getRepository(InstanceEntity).existsBy({ id: INSTANCE_ID });
  }
}

/** Owner-only file (0600), whole or absent for a reader (written aside, then renamed); its content is never logged. */
function writeSecretFile(dir: string, name: string, content: string): void {
  ownerOnlyDir(dir);
  const path = join(dir, name);
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, content + '\n', { mode: 0o600 });
  chmodSync(aside, 0o600);
  renameSync(aside, path);
}
