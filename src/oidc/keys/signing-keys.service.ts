import { Inject, Injectable } from '@nestjs/common';
import { DataSource, IsNull, MoreThan } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { INSTANCE_ID } from '../../users/entities/instance.entity.js';
import { lockInstanceRow } from '../../users/queries/instance.js';
import { readSettings } from '../../settings/settings.store.js';
import { newKeyPair } from './key-pair.js';
import type { PrivateJwk } from './key-pair.js';
import { isScheduled, NEXT_KEY_LEAD_MS, ROTATION_INTERVAL_MS, signerAt, signerFirst } from '../../common/crypto/key-schedule/key-schedule.js';
import { SigningKeyEntity } from './signing-key.entity.js';

export type { PrivateJwk } from './key-pair.js';

/**
 * Signing keys live in the database, private parts sealed with the master key, so every process signs
 * with the same key. Which key signs follows from the stored times alone (`signs_from`, `retired_at`),
 * so processes switch at the same moment without talking to each other; each notices within its poll.
 * A scheduled key is published a day before it signs; a retired key stays published until every token
 * it signed has expired (README, SIGNING_ALG).
 */
@Injectable()
export class SigningKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Creates the first key; publishes the next one NEXT_KEY_LEAD_MS before the signer is 90 days old, or
   * when SIGNING_ALG names another algorithm than the signer's. Run by every process's poll.
   */
  async ensureSchedule(now = new Date()): Promise<void> {
    const keys = await this.published(now);
    const signer = signerAt(keys, now);
    if (!signer) {
      await this.createFirstKey(now);
      return;
    }
    const superseded = keys.filter((k) => !k.retiredAt && k.signsFrom.getTime() < signer.signsFrom.getTime() && !isScheduled(k, now));
    if (superseded.length > 0) await this.retire(superseded, now);
    if (keys.some((k) => isScheduled(k, now))) return;
    const due = signer.signsFrom.getTime() + ROTATION_INTERVAL_MS - NEXT_KEY_LEAD_MS <= now.getTime();
    if (due || signer.alg !== this.config.signingAlg) await this.schedule(signer, now);
  }

  /**
   * Emergency rotation: a new key signs from `now` in every process (at its next poll). The previous
   * signer stays published for its tokens; a scheduled key that never signed is withdrawn, as it may
   * share the compromise this rotation answers. Writes `key.rotated` in the same transaction.
   */
  async rotate(editorUserId: string | null, at?: Date): Promise<string> {
    const alg = this.config.signingAlg;
    const { publicJwk, privateJwk } = await newKeyPair(alg);
    return this.uow.run(async (manager) => {
      // Read the clock inside the transaction: a key another process created meanwhile is then older.
      const now = at ?? new Date();
      const publishUntil = new Date(now.getTime() + (await maxTokenLifetimeMs(manager)));
      const current = await manager.find(SigningKeyEntity, { where: [{ retiredAt: IsNull() }, { retiredAt: MoreThan(now) }] });
      for (const key of current) {
        const neverSigned = isScheduled(key, now);
        await manager.update(SigningKeyEntity, { id: key.id }, { retiredAt: now, publishUntil: neverSigned ? now : publishUntil });
      }
      await this.insert(manager, { id: privateJwk.kid, alg, publicJwk, privateJwk, createdAt: now, signsFrom: now });
      await this.recordRotation(manager, editorUserId, { keyId: privateJwk.kid, alg, signsFrom: now, retiredKeyIds: current.map((k) => k.id) });
      return privateJwk.kid;
    });
  }

  /**
   * The first key of an empty database, created once however many processes start together: the check
   * is repeated inside the transaction that inserts, after taking the instance row (MySQL/MariaDB: a write,
   * certified on Galera; SQLite: every transaction takes the write lock at BEGIN), so a second process sees
   * the first's key.
   */
  private async createFirstKey(now: Date): Promise<void> {
    const alg = this.config.signingAlg;
    const { publicJwk, privateJwk } = await newKeyPair(alg);
    await this.uow.run(async (manager) => {
      await lockInstanceRow(manager);
      // Any unretired key will sign (another process's first key may sign from a moment after `now`).
      if ((await manager.count(SigningKeyEntity, { where: { retiredAt: IsNull() } })) > 0) return;
      await this.insert(manager, { id: privateJwk.kid, alg, publicJwk, privateJwk, createdAt: now, signsFrom: now });
      await this.recordRotation(manager, null, { keyId: privateJwk.kid, alg, signsFrom: now, retiredKeyIds: [] });
    });
  }

  /**
   * Every signing key with its part in the schedule, for `GET /admin/v1/keys`: the one that signs now
   * (`active`), one published ahead of its time (`next`), and the others (`retired`, published while
   * their tokens may live). Never any key material.
   */
  async describe(now = new Date()): Promise<{ keyId: string; alg: string; status: 'active' | 'next' | 'retired'; createdAt: Date }[]> {
    const { signer, ordered } = signerFirst(await this.dataSource.getRepository(SigningKeyEntity).find(), now);
    return ordered.map((k) => ({
      keyId: k.id,
      alg: k.alg,
      status: k === signer ? 'active' : isScheduled(k, now) ? 'next' : 'retired',
      createdAt: k.createdAt,
    }));
  }

  /** A cheap fingerprint of the published key set and its signer, polled by every process to notice a change. */
  async fingerprint(now = new Date()): Promise<string> {
    return signerFirst(await this.published(now), now)
      .ordered.map((k) => k.id)
      .join(',');
  }

  /**
   * Private JWKs of every published key, the signer first. The others carry `key_ops: ["verify"]`, so
   * oidc-provider, which picks the first key of an algorithm for signing, can only sign with the signer
   * (RFC 7517 §4.3); ProviderHolder removes the member from the published JWKS.
   */
  async keySet(now = new Date()): Promise<{ fingerprint: string; jwks: PrivateJwk[] }> {
    const { signer, ordered } = signerFirst(await this.published(now), now);
    const jwks = ordered.map((k) => {
      const jwk = JSON.parse(this.encryptor.decrypt(k.privateJwkEncrypted)) as PrivateJwk;
      return k === signer ? jwk : { ...jwk, key_ops: ['verify'] };
    });
    return { fingerprint: ordered.map((k) => k.id).join(','), jwks };
  }

  /**
   * Retires keys a newer signer replaced without retiring them: processes starting together on an empty
   * database each create a first key. They stay published for the tokens they signed meanwhile.
   */
  private async retire(keys: SigningKeyEntity[], now: Date): Promise<void> {
    await this.uow.run(async (manager) => {
      const publishUntil = new Date(now.getTime() + (await maxTokenLifetimeMs(manager)));
      for (const key of keys) await manager.update(SigningKeyEntity, { id: key.id, retiredAt: IsNull() }, { retiredAt: now, publishUntil });
    });
  }

  /** Publishes the signer's successor now; it signs NEXT_KEY_LEAD_MS later. One process wins a race. */
  private async schedule(signer: SigningKeyEntity, now: Date): Promise<void> {
    const alg = this.config.signingAlg;
    const { publicJwk, privateJwk } = await newKeyPair(alg);
    await this.uow.run(async (manager) => {
      const signsFrom = new Date(now.getTime() + NEXT_KEY_LEAD_MS);
      const publishUntil = new Date(signsFrom.getTime() + (await maxTokenLifetimeMs(manager)));
      // Claiming the signer row decides the race: another process's claim leaves nothing to update.
      const { affected } = await manager.update(SigningKeyEntity, { id: signer.id, retiredAt: IsNull() }, { retiredAt: signsFrom, publishUntil });
      if (affected !== 1) return;
      await this.insert(manager, { id: privateJwk.kid, alg, publicJwk, privateJwk, createdAt: now, signsFrom });
      await this.recordRotation(manager, null, { keyId: privateJwk.kid, alg, signsFrom, retiredKeyIds: [signer.id] });
    });
  }

  private async insert(
    manager: EntityManager,
    key: { id: string; alg: string; publicJwk: object; privateJwk: PrivateJwk; createdAt: Date; signsFrom: Date },
  ): Promise<void> {
    await manager.insert(SigningKeyEntity, {
      id: key.id,
      alg: key.alg,
      publicJwk: JSON.stringify(key.publicJwk),
      privateJwkEncrypted: this.encryptor.encrypt(JSON.stringify(key.privateJwk)),
      createdAt: key.createdAt,
      signsFrom: key.signsFrom,
      retiredAt: null,
      publishUntil: null,
    });
  }

  private recordRotation(
    manager: EntityManager,
    editorUserId: string | null,
    facts: { keyId: string; alg: string; signsFrom: Date; retiredKeyIds: string[] },
  ): Promise<unknown> {
    return this.events.push(manager, {
      type: 'key.rotated',
      aggregateType: 'key',
      aggregateId: facts.keyId,
      resourceOwner: INSTANCE_ID,
      editorUserId,
      payload: { keyId: facts.keyId, alg: facts.alg, signsFrom: facts.signsFrom.toISOString(), retiredKeyIds: facts.retiredKeyIds },
    });
  }

  private published(now: Date): Promise<SigningKeyEntity[]> {
    return this.dataSource.getRepository(SigningKeyEntity).find({ where: [{ retiredAt: IsNull() }, { publishUntil: MoreThan(now) }] });
  }
}

/**
 * Tokens signed by a retired key may live this long: the longest access or ID token lifetime of the instance's
 * settings as they are now (an application's own are never longer, docs/operations.md, "Settings"), plus slack.
 */
async function maxTokenLifetimeMs(manager: EntityManager): Promise<number> {
  const { tokens } = await readSettings(manager);
  const seconds = Math.max(tokens.accessTokenSeconds, tokens.idTokenSeconds);
  return (seconds + 300) * 1000;
}
