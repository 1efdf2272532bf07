import { Inject, Injectable, Optional } from '@nestjs/common';
import { CLIENT_REGISTRATIONS } from '../common/auth/client-registrations.js';
import type { ClientRegistrations } from '../common/auth/client-registrations.js';
import type { EntityManager } from 'typeorm';
import { generateRsaKeyPair } from '../common/crypto/key-pairs.js';
import { SecretHasher, generateSecret } from '../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { MachineSecretEntity } from './entities/machine-secret.entity.js';
import { PersonalAccessTokenEntity } from './entities/personal-access-token.entity.js';
import { PublicKeyEntity } from './entities/public-key.entity.js';
import type { UserEntity } from './entities/user.entity.js';
import { UserAccess } from './acting/user-access.service.js';

/**
 * Credentials of machine users: client secrets, key pairs and personal access tokens. Each is shown once.
 * A replaced or removed secret stops authenticating before the call returns in this process (the cached
 * client registration is forgotten after commit) and within CLIENT_CACHE_MS in the others
 * (docs/product-rules.md, "Changing and removing resources").
 */
@Injectable()
export class CredentialsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly hasher: SecretHasher,
    private readonly access: UserAccess,
    @Optional() @Inject(CLIENT_REGISTRATIONS) private readonly clients?: ClientRegistrations,
  ) {}

  /**
   * Generates a new client secret, replacing any previous one. The machine's client id is its user id. A moving-in
   * run gives the secret the source kept (docs/migrating.md, "Service accounts"), so the client asks as before.
   */
  async setMachineSecret(editorUserId: string | null, orgId: string, userId: string, given?: string): Promise<{ clientId: string; clientSecret: string }> {
    const clientSecret = given ?? generateSecret();
    await this.uow.run(async (manager) => {
      const user = await this.issuableMachine(manager, editorUserId, orgId, userId);
      await manager.delete(MachineSecretEntity, { userId: user.id });
      await manager.insert(MachineSecretEntity, { userId: user.id, secretHash: this.hasher.hash(clientSecret), createdAt: new Date() });
      await this.events.push(manager, {
        type: 'user.machine.secret.set',
        aggregateType: 'user',
        aggregateId: user.id,
        resourceOwner: orgId,
        editorUserId,
      });
    });
    this.clients?.forget(userId);
    return { clientId: userId, clientSecret };
  }

  async addMachineKey(editorUserId: string | null, orgId: string, userId: string, expiresAt: Date | null): Promise<{ keyId: string; privateKeyPem: string }> {
    assertFuture(expiresAt, 'expirationDate');
    // Refuse before spending a key generation (tens of milliseconds of CPU) on a request that fails;
    // the check is repeated inside the transaction that writes.
    await this.issuableMachine(this.uow.manager, editorUserId, orgId, userId);
    const { privateKeyPem, publicKeyPem } = await generateRsaKeyPair();
    const keyId = newId();
    await this.uow.run(async (manager) => {
      await this.issuableMachine(manager, editorUserId, orgId, userId);
      await manager.insert(PublicKeyEntity, {
        id: keyId,
        ownerType: 'machine',
        ownerId: userId,
        orgId,
        publicKey: publicKeyPem,
        expiresAt,
        createdAt: new Date(),
      });
      await this.events.push(manager, {
        type: 'user.machine.key.added',
        aggregateType: 'user',
        aggregateId: userId,
        resourceOwner: orgId,
        editorUserId,
        payload: { keyId, keyType: 'RSA', expirationDate: expiresAt?.toISOString() ?? null },
      });
    });
    return { keyId, privateKeyPem };
  }

  async addPersonalAccessToken(
    editorUserId: string | null,
    orgId: string,
    userId: string,
    expiresAt: Date | null,
  ): Promise<{ tokenId: string; token: string }> {
    assertFuture(expiresAt, 'expirationDate');
    const token = generateSecret();
    const tokenId = newId();
    await this.uow.run(async (manager) => {
      await this.issuableMachine(manager, editorUserId, orgId, userId);
      await manager.insert(PersonalAccessTokenEntity, {
        id: tokenId,
        userId,
        orgId,
        tokenHash: this.hasher.hash(token),
        expiresAt,
        createdAt: new Date(),
      });
      await this.events.push(manager, {
        type: 'user.personal.token.added',
        aggregateType: 'user',
        aggregateId: userId,
        resourceOwner: orgId,
        editorUserId,
        payload: { tokenId, expirationDate: expiresAt?.toISOString() ?? null },
      });
    });
    return { tokenId, token };
  }

  /**
   * Removes the machine's client secret: the client credentials grant refuses it from then on. Tokens
   * already issued live out their lifetime, as after a secret is replaced.
   */
  async removeMachineSecret(editorUserId: string | null, orgId: string, userId: string): Promise<void> {
    await this.uow.run(async (manager) => {
      const user = await this.machineFor(manager, editorUserId, orgId, userId);
      const { affected } = await manager.delete(MachineSecretEntity, { userId: user.id });
      if (!affected) throw DomainError.notFound('client secret');
      await this.events.push(manager, { type: 'user.machine.secret.removed', aggregateType: 'user', aggregateId: user.id, resourceOwner: orgId, editorUserId });
    });
    this.clients?.forget(userId);
  }

  /** Removes a machine key: JWT profile assertions signed with it are refused from then on. */
  async removeMachineKey(editorUserId: string | null, orgId: string, userId: string, keyId: string): Promise<void> {
    await this.uow.run(async (manager) => {
      const user = await this.machineFor(manager, editorUserId, orgId, userId);
      const { affected } = await manager.delete(PublicKeyEntity, { id: keyId, ownerType: 'machine', ownerId: user.id });
      if (!affected) throw DomainError.notFound('key');
      await this.events.push(manager, {
        type: 'user.machine.key.removed',
        aggregateType: 'user',
        aggregateId: user.id,
        resourceOwner: orgId,
        editorUserId,
        payload: { keyId },
      });
    });
  }

  /** Removes a personal access token: the API answers 401 to it from then on (it is looked up on every request). */
  async removePersonalAccessToken(editorUserId: string | null, orgId: string, userId: string, tokenId: string): Promise<void> {
    await this.uow.run(async (manager) => {
      const user = await this.machineFor(manager, editorUserId, orgId, userId);
      const { affected } = await manager.delete(PersonalAccessTokenEntity, { id: tokenId, userId: user.id });
      if (!affected) throw DomainError.notFound('personal access token');
      await this.events.push(manager, {
        type: 'user.personal.token.removed',
        aggregateType: 'user',
        aggregateId: user.id,
        resourceOwner: orgId,
        editorUserId,
        payload: { tokenId },
      });
    });
  }

  /**
   * The machine user a credential is issued for. A credential acts with every role of its user, so
   * only a caller that may act on that user (holds all of its roles) may issue one: otherwise an
   * ORG_USER_MANAGER could mint a token for an ORG_OWNER or IAM_OWNER machine user and act as it.
   */
  private async machineFor(manager: EntityManager, editorUserId: string | null, orgId: string, userId: string): Promise<UserEntity> {
    return assertMachine(await this.access.actOn(manager, editorUserId, orgId, userId));
  }

  /**
   * The machine user a new credential is issued for: `machineFor`, and a machine that may change the members of
   * groups holding a project grant only from a caller that may change them itself (docs/application-access.md,
   * "Groups that hold a grant"). Removing a credential hands out nothing, so it asks `machineFor` alone.
   */
  private async issuableMachine(manager: EntityManager, editorUserId: string | null, orgId: string, userId: string): Promise<UserEntity> {
    const user = await this.machineFor(manager, editorUserId, orgId, userId);
    await this.access.assertMayIssueCredentialOf(manager, editorUserId, user);
    return user;
  }
}

function assertMachine(user: UserEntity): UserEntity {
  if (user.type !== 'machine') {
    throw new DomainError(ErrorCode.FailedPrecondition, 'only machine users have client secrets, keys and personal access tokens');
  }
  return user;
}

function assertFuture(date: Date | null, field: string): void {
  if (date !== null && date.getTime() <= Date.now()) {
    throw DomainError.invalid(`${field} must be in the future`, [{ field, message: `${field} must be in the future` }]);
  }
}
