import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLIENT_REGISTRATIONS } from '../../common/auth/client-registrations.js';
import type { ClientRegistrations } from '../../common/auth/client-registrations.js';
import { SecretHasher, generateSecret } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { UserAccess } from '../acting/user-access.service.js';
import { ApplicationEntity } from '../entities/application.entity.js';
import { PublicKeyEntity } from '../entities/public-key.entity.js';
import { applicationIn, assertMayManage, usesSecret } from './application-access.js';
import type { Page, Paged } from '../../common/database/page.js';

/**
 * An application's client secret and its `private_key_jwt` keys (docs/product-rules.md, "Changing and
 * removing resources"). A replaced secret or a removed key stops authenticating at once in this process
 * (its cached registration is forgotten after commit) and within CLIENT_CACHE_MS in the others.
 */
@Injectable()
export class ApplicationCredentialsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly hasher: SecretHasher,
    private readonly access: UserAccess,
    @Optional() @Inject(CLIENT_REGISTRATIONS) private readonly clients?: ClientRegistrations,
  ) {}

  /** A new client secret, shown once; only its keyed hash is kept, and the old one stops working. */
  async regenerateSecret(editorUserId: string | null, orgId: string, projectId: string, appId: string): Promise<string> {
    const secret = generateSecret();
    const app = await this.uow.run(async (manager) => {
      const app = await applicationIn(manager, orgId, projectId, appId);
      await assertMayManage(manager, this.access, editorUserId, app.apiAccess);
      if (!usesSecret(app.authMethod)) {
        throw new DomainError(
          ErrorCode.FailedPrecondition,
          `the application authenticates with ${app.authMethod}; only client_secret_basic and client_secret_post use a secret`,
        );
      }
      await manager.update(ApplicationEntity, { id: app.id }, { clientSecretHash: this.hasher.hash(secret), changedAt: new Date() });
      await this.events.push(manager, {
        type: 'project.application.secret.changed',
        aggregateType: 'application',
        aggregateId: app.id,
        resourceOwner: orgId,
        editorUserId,
        payload: { projectId, clientId: app.clientId },
      });
      return app;
    });
    this.clients?.forget(app.clientId);
    return secret;
  }

  async listKeys(orgId: string, projectId: string, appId: string, page: Page): Promise<Paged<PublicKeyEntity>> {
    const manager = this.uow.manager;
    const app = await applicationIn(manager, orgId, projectId, appId);
    const [items, total] = await manager.findAndCount(PublicKeyEntity, {
      where: { ownerType: 'application', ownerId: app.id },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { items, total };
  }

  async removeKey(editorUserId: string | null, orgId: string, projectId: string, appId: string, keyId: string): Promise<void> {
    const app = await this.uow.run(async (manager) => {
      const app = await applicationIn(manager, orgId, projectId, appId);
      await assertMayManage(manager, this.access, editorUserId, app.apiAccess);
      const { affected } = await manager.delete(PublicKeyEntity, { id: keyId, ownerType: 'application', ownerId: app.id });
      if (affected !== 1) throw DomainError.notFound('key');
      await this.events.push(manager, {
        type: 'project.application.key.removed',
        aggregateType: 'application',
        aggregateId: app.id,
        resourceOwner: orgId,
        editorUserId,
        payload: { projectId, keyId },
      });
      return app;
    });
    this.clients?.forget(app.clientId);
  }
}
