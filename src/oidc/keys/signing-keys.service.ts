import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, MoreThan } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import { InstanceEntity, INSTANCE_ID } from '../../users/entities/instance.entity.js';
import { SigningKeyEntity } from './signing-key.entity.js';

const generate = promisify(generateKeyPair);

/** DESIGN §5: keys rotate every 90 days and on demand. */
export const ROTATION_INTERVAL_MS = 90 * 24 * 3600 * 1000;

export type SigningAlg = 'RS256' | 'ES256' | 'EdDSA';

export interface PrivateJwk {
  kid: string;
  alg: string;
  use: 'sig';
  kty: string;
  [member: string]: unknown;
}

/**
 * Signing keys live in the database, private parts sealed with the master key, so every process signs
 * with the same key and a rotation reaches all of them at their next check (DESIGN §5). A retired key
 * stays published until every token it signed has expired.
 */
@Injectable()
export class SigningKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
  ) {}

  /** Creates the first key, or a new one when the active key is older than the rotation interval. */
  async ensureCurrent(alg: SigningAlg = 'RS256'): Promise<void> {
    const active = await this.active();
    if (active && active.createdAt.getTime() + ROTATION_INTERVAL_MS > Date.now()) return;
    await this.rotate(null, alg);
  }

  /** Makes a new key the active one; returns its id. Writes `key.rotated` in the same transaction. */
  async rotate(editorUserId: string | null, alg: SigningAlg = 'RS256'): Promise<string> {
    const { publicJwk, privateJwk } = await newKeyPair(alg);
    return this.uow.run(async (manager) => {
      const now = new Date();
      const publishUntil = new Date(now.getTime() + (await maxTokenLifetimeMs(manager)));
      const previous = await manager.find(SigningKeyEntity, { where: { retiredAt: IsNull() } });
      for (const key of previous) await manager.update(SigningKeyEntity, { id: key.id }, { retiredAt: now, publishUntil });
      const id = privateJwk.kid;
      await manager.insert(SigningKeyEntity, {
        id,
        alg,
        publicJwk: JSON.stringify(publicJwk),
        privateJwkEncrypted: this.encryptor.encrypt(JSON.stringify(privateJwk)),
        createdAt: now,
        retiredAt: null,
        publishUntil: null,
      });
      await this.events.push(manager, {
        type: 'key.rotated',
        aggregateType: 'key',
        aggregateId: id,
        resourceOwner: INSTANCE_ID,
        editorUserId,
        payload: { keyId: id, alg, retiredKeyIds: previous.map((k) => k.id) },
      });
      return id;
    });
  }

  /** A cheap fingerprint of the published key set, polled by every process to notice a rotation. */
  async fingerprint(): Promise<string> {
    return (await this.published()).map((k) => k.id).join(',');
  }

  /** Private JWKs of every published key, the active (newest) first: oidc-provider signs with the first. */
  async privateJwks(): Promise<PrivateJwk[]> {
    return (await this.published()).map((k) => JSON.parse(this.encryptor.decrypt(k.privateJwkEncrypted)) as PrivateJwk);
  }

  private active(): Promise<SigningKeyEntity | null> {
    return this.dataSource.getRepository(SigningKeyEntity).findOne({ where: { retiredAt: IsNull() }, order: { createdAt: 'DESC' } });
  }

  private async published(): Promise<SigningKeyEntity[]> {
    const repo = this.dataSource.getRepository(SigningKeyEntity);
    const keys = await repo.find({ where: [{ retiredAt: IsNull() }, { publishUntil: MoreThan(new Date()) }], order: { createdAt: 'DESC' } });
    // The active key first, then older ones newest first.
    return [...keys.filter((k) => !k.retiredAt), ...keys.filter((k) => k.retiredAt)];
  }
}

async function newKeyPair(alg: SigningAlg): Promise<{ publicJwk: Record<string, unknown>; privateJwk: PrivateJwk }> {
  const pair =
    alg === 'RS256'
      ? await generate('rsa', { modulusLength: 2048 })
      : alg === 'ES256'
        ? await generate('ec', { namedCurve: 'P-256' })
        : await generate('ed25519');
  const kid = newId();
  const base = { kid, alg, use: 'sig' as const };
  return {
    publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), ...base },
    privateJwk: { ...(pair.privateKey.export({ format: 'jwk' }) as { kty: string }), ...base },
  };
}

/** Tokens signed by a retired key may live this long: the longest access or ID token lifetime, plus slack. */
async function maxTokenLifetimeMs(manager: EntityManager): Promise<number> {
  const instance = await manager.findOneBy(InstanceEntity, { id: INSTANCE_ID });
  const seconds = Math.max(instance?.accessTokenLifetime ?? 43_200, instance?.idTokenLifetime ?? 43_200);
  return (seconds + 300) * 1000;
}
