import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { Encryptor } from '../../common/crypto/encryptor.js';
import type { JsonObject } from '../../common/database/columns.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import { UserFactorEntity } from '../entities/user-factor.entity.js';
import { UserImportWriter } from '../user-import.writer.js';
import type { ImportedHuman } from '../user-import.writer.js';

/** A user moving in from another identity service: the import's user plus an authenticator it already holds. */
export interface MovedHuman extends ImportedHuman {
  /** The base32 TOTP secret (RFC 6238, SHA-1, 6 digits, 30 s) the user's authenticator app already holds. */
  totpSecret: string | null;
}

/**
 * The write path of a migration (docs/migrating.md): users with their kept ids and hashes as the import writes them,
 * each with its active TOTP factor in the same transaction, every event carrying the migration as its origin.
 */
@Injectable()
export class MovingInWriter {
  constructor(
    private readonly users: UserImportWriter,
    private readonly encryptor: Encryptor,
    private readonly events: EventStore,
  ) {}

  /** `alsoWrite` runs in each batch's transaction (the caller's id map), after the users and their factors. */
  insertHumans(
    editorUserId: string,
    origin: JsonObject,
    humans: MovedHuman[],
    alsoWrite?: (manager: EntityManager, written: ImportedHuman[]) => Promise<void>,
  ): Promise<{ inserted: string[]; rejected: { userId: string; message: string }[] }> {
    const secrets = new Map(humans.filter((h) => h.totpSecret !== null).map((h) => [h.id, h.totpSecret!]));
    const plain = humans.map(({ totpSecret: _secret, ...user }) => user);
    return this.users.insertBatch(editorUserId, plain, {
      origin,
      alsoWrite: async (manager, written) => {
        await this.addAuthenticators(manager, editorUserId, origin, written, secrets);
        await alsoWrite?.(manager, written);
      },
    });
  }

  private async addAuthenticators(
    manager: EntityManager,
    editorUserId: string,
    origin: JsonObject,
    written: ImportedHuman[],
    secrets: Map<string, string>,
  ): Promise<void> {
    for (const user of written) {
      const secret = secrets.get(user.id);
      if (secret === undefined) continue;
      const factorId = newId();
      await manager.insert(UserFactorEntity, {
        id: factorId,
        userId: user.id,
        type: 'totp',
        state: 'active',
        name: null,
        totpSecret: this.encryptor.encrypt(secret),
        totpLastStep: null,
        credentialKey: null,
        credentialId: null,
        publicKey: null,
        signCount: null,
        transports: null,
        multiDevice: null,
        createdAt: new Date(),
        lastUsedAt: null,
      });
      await this.events.push(manager, {
        type: 'user.human.mfa.added',
        aggregateType: 'user',
        aggregateId: user.id,
        resourceOwner: user.orgId,
        editorUserId,
        payload: { factorId, type: 'totp', ...origin },
      });
    }
  }
}
