import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource, IsNull, MoreThan } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { newSelfSignedCredentials } from '../../common/crypto/self-signed-credentials.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { isScheduled, NEXT_KEY_LEAD_MS, signerAt, signerFirst } from '../../common/crypto/key-schedule/key-schedule.js';
import { INSTANCE_ID } from '../../users/entities/instance.entity.js';
import { lockInstanceRow } from '../../users/queries/instance.js';
import { SamlSigningKeyEntity } from './saml-signing-key.entity.js';

/**
 * A retired key stays in the metadata this long: service providers read metadata when they are configured or on
 * their own schedule (a day is common), and a response it signed lives 5 minutes.
 */
const RETIRED_PUBLISH_MS = 24 * 3600 * 1000;

export type SamlKeyStatus = 'active' | 'next' | 'retired';

/**
 * The instance's SAML signing keys (docs/saml.md): RSA 2048 with a self-signed certificate, the private
 * key sealed with the master key. Which key signs follows from the stored times alone, as for the OIDC keys
 * (src/common/crypto/key-schedule/key-schedule.ts). No automatic rotation: a service provider that pinned the certificate (mellon reads
 * the metadata once, at configuration) would stop accepting responses; an operator rotates, and the next key is in
 * the metadata a day before it signs, so that service providers reading it meanwhile trust both.
 */
@Injectable()
export class SamlKeysService {
  private readonly privateKeys = new Map<string, KeyObject>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
  ) {}

  /** The certificates of the metadata (base64 DER), the signer's first; the first key is created on first use. */
  async publishedCertificates(now = new Date()): Promise<string[]> {
    return (await this.publishedWithSigner(now)).map((key) => certificateBase64(key.certificatePem));
  }

  /**
   * The key that signs now, with its private key (for the SSO responses). Which key signs is read on every call; a
   * key's material never changes, so its unsealed, parsed private key is kept by id (a few keys at most).
   */
  async signer(now = new Date()): Promise<{ keyId: string; certificatePem: string; privateKey: KeyObject }> {
    const [key] = await this.publishedWithSigner(now);
    let privateKey = this.privateKeys.get(key!.id);
    if (!privateKey) {
      if (this.privateKeys.size >= 8) this.privateKeys.clear();
      privateKey = createPrivateKey(this.encryptor.decrypt(key!.privateKeyEncrypted));
      this.privateKeys.set(key!.id, privateKey);
    }
    return { keyId: key!.id, certificatePem: key!.certificatePem, privateKey };
  }

  /** Every key with its part in the schedule, for `GET /admin/v1/saml/keys`; never any private key. */
  async describe(now = new Date()): Promise<{ keyId: string; status: SamlKeyStatus; createdAt: Date; signsFrom: Date; notAfter: Date }[]> {
    const { signer, ordered } = signerFirst(await this.published(now), now);
    return ordered.map((k) => ({
      keyId: k.id,
      status: k === signer ? 'active' : isScheduled(k, now) ? 'next' : 'retired',
      createdAt: k.createdAt,
      signsFrom: k.signsFrom,
      notAfter: new Date(new X509Certificate(k.certificatePem).validTo),
    }));
  }

  /**
   * A new key: published now, signing a day later (`immediately`: at once, for a compromised key — the current signer
   * and a next key that never signed are withdrawn from the metadata, as they may share the compromise). The signer
   * it replaces stays in the metadata a day after it stops signing. Writes `saml.key.rotated` in the same transaction;
   * two rotations at once run one after the other (the instance row is written first: on Galera too, docs/high-availability.md).
   */
  async rotate(editorUserId: string | null, immediately: boolean): Promise<{ keyId: string; signsFrom: Date }> {
    const credentials = await newSelfSignedCredentials('Portcullis SAML IdP');
    return this.uow.run(async (manager) => {
      await lockInstanceRow(manager);
      const now = new Date();
      const signsFrom = immediately ? now : new Date(now.getTime() + NEXT_KEY_LEAD_MS);
      const current = await manager.find(SamlSigningKeyEntity, { where: [{ retiredAt: IsNull() }, { retiredAt: MoreThan(now) }] });
      for (const key of current) {
        const neverSigned = isScheduled(key, now);
        const publishUntil = immediately || neverSigned ? now : new Date(signsFrom.getTime() + RETIRED_PUBLISH_MS);
        await manager.update(SamlSigningKeyEntity, { id: key.id }, { retiredAt: neverSigned ? now : signsFrom, publishUntil });
      }
      const keyId = await this.insert(manager, credentials, now, signsFrom);
      await this.events.push(manager, {
        type: 'saml.key.rotated',
        aggregateType: 'key',
        aggregateId: keyId,
        resourceOwner: INSTANCE_ID,
        editorUserId,
        payload: { keyId, signsFrom: signsFrom.toISOString(), immediately, retiredKeyIds: current.map((k) => k.id) },
      });
      return { keyId, signsFrom };
    });
  }

  /** The published keys, the signer first; creates the first key when none signs. */
  private async publishedWithSigner(now: Date): Promise<SamlSigningKeyEntity[]> {
    let keys = await this.published(now);
    if (!signerAt(keys, now)) {
      await this.createFirstKey(now);
      keys = await this.published(now);
    }
    return signerFirst(keys, now).ordered;
  }

  /** Created once however many processes ask at once: the check is repeated after the instance row is written. */
  private async createFirstKey(now: Date): Promise<void> {
    const credentials = await newSelfSignedCredentials('Portcullis SAML IdP');
    await this.uow.run(async (manager) => {
      await lockInstanceRow(manager);
      if ((await manager.count(SamlSigningKeyEntity, { where: { retiredAt: IsNull() } })) > 0) return;
      await this.insert(manager, credentials, now, now);
    });
  }

  private async insert(
    manager: EntityManager,
    credentials: { privateKeyPem: string; certificatePem: string },
    createdAt: Date,
    signsFrom: Date,
  ): Promise<string> {
    const id = new X509Certificate(credentials.certificatePem).fingerprint256.replace(/:/g, '').toLowerCase();
    await manager.insert(SamlSigningKeyEntity, {
      id,
      certificatePem: credentials.certificatePem,
      privateKeyEncrypted: this.encryptor.encrypt(credentials.privateKeyPem),
      createdAt,
      signsFrom,
      retiredAt: null,
      publishUntil: null,
    });
    return id;
  }

  private published(now: Date): Promise<SamlSigningKeyEntity[]> {
    return this.dataSource.getRepository(SamlSigningKeyEntity).find({ where: [{ publishUntil: IsNull() }, { publishUntil: MoreThan(now) }] });
  }
}

/** The certificate's DER, base64, as `ds:X509Certificate` carries it. */
function certificateBase64(pem: string): string {
  return new X509Certificate(pem).raw.toString('base64');
}
