import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { statementsOf } from '../../common/database/statements.js';
import type { EntityManager } from 'typeorm';
import type { AuthenticatorTransportFuture } from '@simplewebauthn/server';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import { UserAccess } from '../acting/user-access.service.js';
import { MfaOfferSkipEntity } from '../entities/mfa-offer-skip.entity.js';
import { RecoveryCodeEntity } from '../entities/recovery-code.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import { UserFactorEntity } from '../entities/user-factor.entity.js';
import type { FactorType } from '../entities/user-factor.entity.js';
import { PasswordChecks } from '../password-checks.service.js';
import type { CheckSource } from '../password-checks.service.js';
import type { NewPasskey, StoredPasskey } from './passkeys.js';
import { fallbackPasskeyName, passkeyName } from './passkey-names.js';
import { newRecoveryCodes, normalizeRecoveryCode } from './recovery-codes.js';
import { newTotpSecret, totpStepOf } from './totp.js';

/** The user a sign-in step is about. */
export interface FactorOwner {
  id: string;
  orgId: string;
}

export interface FactorView {
  id: string;
  type: FactorType;
  name?: string;
  createdAt: string;
}

/** What a user can answer a second-factor prompt with. */
export interface FactorSummary {
  totp: boolean;
  passkeys: StoredPasskey[];
  /** Unused recovery codes are left. */
  recoveryCodes: boolean;
  /** The user declined the offer to enrol less than OFFER_SKIP_MS ago. */
  offerSkipped: boolean;
}

/** The user's active factors (none: one row of nulls) with the unused recovery codes and the declined offer. */
const SUMMARY_SQL = `SELECT f.type, f.credential_id, f.public_key, f.sign_count, f.transports, s.skipped_at,
    (SELECT COUNT(*) FROM recovery_codes r WHERE r.factor_id = f.id AND r.used_at IS NULL) AS unused_codes
  FROM (SELECT ? AS id) u
  LEFT JOIN user_factors f ON f.user_id = u.id AND f.state = 'active'
  LEFT JOIN mfa_offer_skips s ON s.user_id = u.id`;

interface SummaryRow {
  type: FactorType | null;
  credential_id: string | null;
  public_key: string | null;
  sign_count: number | string | null;
  transports: string | null;
  skipped_at: number | string | null;
  unused_codes: number | string | null;
}

export type CodeCheck = { ok: true; type: FactorType; factorId: string } | { ok: false; locked: boolean };

export interface FoundPasskey {
  factorId: string;
  userId: string;
  multiDevice: boolean;
  passkey: StoredPasskey;
}

/** How long a declined offer to enrol is not repeated (what ZITADEL calls the MFA init skip lifetime). */
const OFFER_SKIP_MS = 30 * 24 * 3600 * 1000;

/**
 * Second factors of human users (docs/product-rules.md, "Multi-factor sign-in"): TOTP authenticators,
 * passkeys and recovery codes. Every check is counted like a password check (PasswordChecks), so wrong
 * codes lead to the same lockout; a code is accepted by one conditional UPDATE, so a TOTP step or a
 * recovery code works once even when the same code is sent twice at the same moment. Events name the
 * factor and its type, never a secret or a code.
 */
@Injectable()
export class FactorsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly hasher: SecretHasher,
    private readonly encryptor: Encryptor,
    private readonly access: UserAccess,
    private readonly checks: PasswordChecks,
  ) {}

  /** A user's factors for the management API (docs/product-rules.md, "Who may act on whom"). */
  list(editorUserId: string | null, orgId: string, userId: string): Promise<FactorView[]> {
    return this.uow.run(async (manager) => {
      await this.access.actOn(manager, editorUserId, orgId, userId);
      const rows = await manager.find(UserFactorEntity, { where: { userId, state: 'active' }, order: { createdAt: 'ASC', id: 'ASC' } });
      return rows.map((f) => ({ id: f.id, type: f.type, ...nameOf(f), createdAt: f.createdAt.toISOString() }));
    });
  }

  /** Removes one factor; the user's next sign-in asks what is left (or enrolment, where required). */
  async remove(editorUserId: string | null, orgId: string, userId: string, factorId: string): Promise<void> {
    await this.uow.run(async (manager) => {
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      const factor = await manager.findOneBy(UserFactorEntity, { id: factorId, userId: user.id, state: 'active' });
      // MariaDB's utf8mb4_bin is PAD SPACE: `id = 'x '` finds `x`. Only the exact id names the factor.
      if (!factor || factor.id !== factorId) throw DomainError.notFound('factor');
      await manager.delete(UserFactorEntity, { id: factor.id });
      await this.record(manager, user, 'user.human.mfa.removed', factor, editorUserId);
    });
  }

  /**
   * The user removes one of its own factors on the account page (docs/account.md). Under `mfa: "required"` (`keepOne`)
   * the last TOTP or passkey stays: recovery codes alone are no second factor to sign in with. Checked and
   * removed in one transaction, so two removals at once cannot both pass the check.
   */
  async removeOwn(user: FactorOwner, factorId: string, keepOne: boolean): Promise<void> {
    await this.uow.run(async (manager) => {
      const factors = await manager.find(UserFactorEntity, { where: { userId: user.id, state: 'active' } });
      const factor = factors.find((f) => f.id === factorId);
      if (!factor) throw DomainError.notFound('factor');
      const signInFactors = factors.filter((f) => f.type === 'totp' || f.type === 'passkey');
      if (keepOne && signInFactors.length === 1 && signInFactors[0] === factor) {
        throw new DomainError(ErrorCode.FailedPrecondition, 'your organization requires a second factor: add another before you remove the last one');
      }
      await manager.delete(UserFactorEntity, { id: factor.id });
      await this.record(manager, user, 'user.human.mfa.removed', factor, user.id);
    });
  }

  /**
   * What the user can answer a second-factor prompt with, and whether the offer to enrol was declined
   * lately: one statement, as it runs at every sign-in.
   */
  async summary(userId: string): Promise<FactorSummary> {
    const rows = await statementsOf(this.dataSource).rows<SummaryRow>(SUMMARY_SQL, [userId]);
    const factors = rows.filter((r) => r.type !== null);
    const skippedAt = rows[0]?.skipped_at;
    return {
      totp: factors.some((f) => f.type === 'totp'),
      passkeys: factors.filter((f) => f.type === 'passkey').map((f) => storedPasskey(f)),
      recoveryCodes: factors.some((f) => f.type === 'recovery_codes' && Number(f.unused_codes) > 0),
      offerSkipped: skippedAt != null && Date.now() - Number(skippedAt) < OFFER_SKIP_MS,
    };
  }

  /** Starts a TOTP enrolment: a pending factor with a new secret (an earlier pending one is dropped). */
  async startTotp(user: FactorOwner): Promise<{ factorId: string; secret: string }> {
    const secret = newTotpSecret();
    const factorId = newId();
    await this.uow.run(async (manager) => {
      await manager.delete(UserFactorEntity, { userId: user.id, type: 'totp', state: 'pending' });
      await manager.insert(UserFactorEntity, { ...emptyFactor(factorId, user.id, 'totp', 'pending'), totpSecret: this.encryptor.encrypt(secret) });
    });
    return { factorId, secret };
  }

  /** Completes a TOTP enrolment with a first code; a wrong one counts like any failed check. */
  async confirmTotp(user: FactorOwner, factorId: string, code: string, source: CheckSource): Promise<CodeCheck> {
    const pending = await this.dataSource.getRepository(UserFactorEntity).findOneBy({ id: factorId, userId: user.id, type: 'totp', state: 'pending' });
    if (!pending) return { ok: false, locked: false };
    return this.counted(user, 'totp', source, async (manager) => {
      const step = totpStepOf(this.encryptor.decrypt(pending.totpSecret ?? ''), code);
      if (step === undefined) return false;
      const { affected } = await manager.update(
        UserFactorEntity,
        { id: pending.id, state: 'pending' },
        { state: 'active', totpLastStep: step, lastUsedAt: new Date() },
      );
      if (affected !== 1) return false;
      await this.record(manager, user, 'user.human.mfa.added', pending, user.id);
      await settleOwedEnrolment(manager, user.id);
      return { type: 'totp', factorId: pending.id };
    });
  }

  /** A TOTP code of any of the user's authenticators, else one of the user's unused recovery codes. */
  checkCode(user: FactorOwner, code: string, source: CheckSource): Promise<CodeCheck> {
    return this.counted(user, 'code', source, async (manager) => {
      const totps = await manager.findBy(UserFactorEntity, { userId: user.id, type: 'totp', state: 'active' });
      for (const factor of totps) {
        const step = totpStepOf(this.encryptor.decrypt(factor.totpSecret ?? ''), code);
        if (step === undefined) continue;
        const { affected } = await manager
          .createQueryBuilder()
          .update(UserFactorEntity)
          .set({ totpLastStep: step, lastUsedAt: new Date() })
          .where('id = :id AND (totp_last_step IS NULL OR totp_last_step < :step)', { id: factor.id, step })
          .execute();
        // The code's step was used already: a replay, refused like a wrong code.
        if (affected !== 1) return false;
        await this.record(manager, user, 'user.human.mfa.check.succeeded', factor);
        return { type: 'totp', factorId: factor.id };
      }
      return this.useRecoveryCodeIn(manager, user, code);
    });
  }

  /** One of the user's unused recovery codes, alone (a passkeys-only recovery, docs/passwordless.md); counted like a code. */
  checkRecoveryCode(user: FactorOwner, code: string, source: CheckSource): Promise<CodeCheck> {
    return this.counted(user, 'code', source, (manager) => this.useRecoveryCodeIn(manager, user, code));
  }

  /** Uses the recovery code once (one conditional UPDATE): false when it is wrong or used. */
  private async useRecoveryCodeIn(manager: EntityManager, user: FactorOwner, code: string): Promise<false | { type: FactorType; factorId: string }> {
    const recoveryCode = normalizeRecoveryCode(code);
    if (!recoveryCode) return false;
    const factor = await manager.findOneBy(UserFactorEntity, { userId: user.id, type: 'recovery_codes', state: 'active' });
    if (!factor) return false;
    const { affected } = await manager
      .createQueryBuilder()
      .update(RecoveryCodeEntity)
      .set({ usedAt: new Date() })
      .where('factor_id = :factorId AND code_hash = :hash AND used_at IS NULL', { factorId: factor.id, hash: this.hasher.hash(recoveryCode) })
      .execute();
    if (affected !== 1) return false;
    await this.record(manager, user, 'user.human.mfa.check.succeeded', factor);
    return { type: 'recovery_codes', factorId: factor.id };
  }

  /** Ten new recovery codes, replacing the user's earlier ones; shown once, stored as keyed hashes. */
  async newRecoveryCodes(user: FactorOwner): Promise<string[]> {
    return this.uow.run((manager) => this.newRecoveryCodesIn(manager, user));
  }

  /** The same inside the caller's transaction. */
  async newRecoveryCodesIn(manager: EntityManager, user: FactorOwner): Promise<string[]> {
    const codes = newRecoveryCodes();
    await manager.delete(UserFactorEntity, { userId: user.id, type: 'recovery_codes' });
    const factor = emptyFactor(newId(), user.id, 'recovery_codes', 'active');
    await manager.insert(UserFactorEntity, factor);
    await manager.insert(
      RecoveryCodeEntity,
      codes.map((code) => ({ factorId: factor.id, codeHash: this.hasher.hash(normalizeRecoveryCode(code)!), usedAt: null })),
    );
    await this.record(manager, user, 'user.human.mfa.added', factor, user.id);
    return codes;
  }

  /** Stores a verified new passkey; one credential belongs to one user only. */
  addPasskey(user: FactorOwner, passkey: NewPasskey): Promise<string> {
    return this.uow.run((manager) => this.addPasskeyIn(manager, user, passkey));
  }

  /** The same inside the caller's transaction (a passkey enrolled from a mailed link, docs/passwordless.md). */
  async addPasskeyIn(manager: EntityManager, user: FactorOwner, passkey: NewPasskey): Promise<string> {
    const factorId = newId();
    const credentialKey = credentialKeyOf(passkey.credentialId);
    if (await manager.existsBy(UserFactorEntity, { credentialKey })) throw DomainError.alreadyExists('this passkey is registered already');
    const empty = emptyFactor(factorId, user.id, 'passkey', 'active');
    const factor = {
      ...empty,
      name: passkeyName(passkey.aaguid, empty.createdAt),
      credentialKey,
      credentialId: passkey.credentialId,
      publicKey: passkey.publicKey,
      signCount: passkey.signCount,
      transports: passkey.transports.join(',') || null,
      multiDevice: passkey.multiDevice,
    };
    await manager.insert(UserFactorEntity, factor);
    await this.record(manager, user, 'user.human.mfa.added', factor, user.id);
    await settleOwedEnrolment(manager, user.id);
    return factorId;
  }

  /**
   * Stores a verified new passkey in place of every earlier one of the user (docs/passwordless.md, "Recovery"): a
   * person recovering holds none of them any more, and whoever holds one must not sign in with it. The new one is
   * added first, so the events never tell of a moment without a passkey (an assurance level change, docs/signals.md).
   */
  async replacePasskeysIn(manager: EntityManager, user: FactorOwner, passkey: NewPasskey): Promise<{ factorId: string; removed: number }> {
    const earlier = await manager.find(UserFactorEntity, { where: { userId: user.id, type: 'passkey' }, order: { createdAt: 'ASC', id: 'ASC' } });
    const factorId = await this.addPasskeyIn(manager, user, passkey);
    for (const factor of earlier) {
      await manager.delete(UserFactorEntity, { id: factor.id });
      await this.record(manager, user, 'user.human.mfa.removed', factor, user.id);
    }
    return { factorId, removed: earlier.length };
  }

  async findPasskey(credentialId: string): Promise<FoundPasskey | undefined> {
    const row = await this.dataSource
      .getRepository(UserFactorEntity)
      .findOneBy({ credentialKey: credentialKeyOf(credentialId), type: 'passkey', state: 'active' });
    return row ? { factorId: row.id, userId: row.userId, multiDevice: Boolean(row.multiDevice), passkey: storedPasskey(row) } : undefined;
  }

  /**
   * Counts a passkey assertion like a password check: `verify` runs once the attempt is counted and
   * returns the new signature counter, or undefined when the assertion is refused (also for an
   * unknown credential, `found` undefined).
   */
  checkPasskey(user: FactorOwner, found: FoundPasskey | undefined, source: CheckSource, verify: () => Promise<number | undefined>): Promise<CodeCheck> {
    return this.counted(user, 'passkey', source, async (manager) => {
      const newSignCount = found && (await verify());
      if (!found || newSignCount === undefined) return false;
      // A counter that does not grow (once an authenticator counts at all) marks a cloned credential (WebAuthn §6.1.1).
      const previous = found.passkey.signCount;
      if ((newSignCount !== 0 || previous !== 0) && newSignCount <= previous) return false;
      await manager.update(UserFactorEntity, { id: found.factorId }, { signCount: newSignCount, lastUsedAt: new Date() });
      await this.record(manager, user, 'user.human.mfa.check.succeeded', { id: found.factorId, type: 'passkey' });
      return { type: 'passkey', factorId: found.factorId };
    });
  }

  /** The secret of a TOTP enrolment under way (to show it again after a wrong first code). */
  async pendingTotpSecret(userId: string, factorId: string): Promise<string | undefined> {
    const row = await this.dataSource.getRepository(UserFactorEntity).findOneBy({ id: factorId, userId, type: 'totp', state: 'pending' });
    return row?.totpSecret ? this.encryptor.decrypt(row.totpSecret) : undefined;
  }

  /** The user declined to enrol now (policy `optional`); the offer returns after OFFER_SKIP_MS. */
  async skipOffer(userId: string): Promise<void> {
    await this.uow.manager.upsert(MfaOfferSkipEntity, { userId, skippedAt: new Date() }, ['userId']);
  }

  /**
   * One counted check (docs/product-rules.md, "Multi-factor sign-in": failed codes count toward the
   * lockout), in one transaction: counted before anything is verified (the user's row stays locked, so
   * parallel checks take turns), refused unverified at the limit; a success resets the count with its
   * event, a failure records its event and may lock the user.
   */
  private async counted(
    user: FactorOwner,
    type: string,
    source: CheckSource,
    verify: (manager: EntityManager) => Promise<false | { type: FactorType; factorId: string }>,
  ): Promise<CodeCheck> {
    return this.uow.run(async (manager): Promise<CodeCheck> => {
      if (!(await this.checks.reserveIn(manager, user.id))) return { ok: false, locked: true };
      const accepted = await verify(manager);
      if (accepted) {
        await this.checks.reset(manager, user.id);
        return { ok: true, ...accepted };
      }
      await this.checks.failedIn(manager, user.id, source, { type: 'user.human.mfa.check.failed', payload: { type } });
      return { ok: false, locked: false };
    });
  }

  private async record(
    manager: EntityManager,
    user: FactorOwner,
    type: 'user.human.mfa.added' | 'user.human.mfa.removed' | 'user.human.mfa.check.succeeded',
    factor: Pick<UserFactorEntity, 'id' | 'type'>,
    editorUserId: string | null = null,
  ) {
    // How many factors to sign in with remain after an addition or removal: a Shared Signals transmitter tells an
    // assurance level change by it (docs/signals.md, "What is transmitted").
    const signInFactors =
      type === 'user.human.mfa.check.succeeded'
        ? undefined
        : await manager.count(UserFactorEntity, {
            where: [
              { userId: user.id, state: 'active', type: 'totp' },
              { userId: user.id, state: 'active', type: 'passkey' },
            ],
          });
    return this.events.push(manager, {
      type,
      aggregateType: 'user',
      aggregateId: user.id,
      resourceOwner: user.orgId,
      editorUserId,
      payload: { factorId: factor.id, type: factor.type, ...(signInFactors === undefined ? {} : { signInFactors }) },
    });
  }
}

/** A factor added pays what the account owed (UserEntity.mfaEnrolmentRequired), as Keycloak drops a done required action. */
async function settleOwedEnrolment(manager: EntityManager, userId: string): Promise<void> {
  await manager.update(UserEntity, { id: userId, mfaEnrolmentRequired: true }, { mfaEnrolmentRequired: false });
}

function emptyFactor(id: string, userId: string, type: FactorType, state: 'pending' | 'active') {
  return {
    id,
    userId,
    type,
    state,
    name: null,
    totpSecret: null,
    totpLastStep: null,
    credentialKey: null,
    credentialId: null,
    publicKey: null,
    signCount: null,
    transports: null,
    multiDevice: null,
    createdAt: new Date(),
    lastUsedAt: null,
  };
}

/** A factor's name; a passkey stored before passkeys were named gets the fallback name. */
function nameOf(factor: Pick<UserFactorEntity, 'type' | 'name' | 'createdAt'>): { name?: string } {
  if (factor.name) return { name: factor.name };
  return factor.type === 'passkey' ? { name: fallbackPasskeyName(factor.createdAt) } : {};
}

function credentialKeyOf(credentialId: string): string {
  return createHash('sha256').update(credentialId).digest('hex');
}

function storedPasskey(row: Pick<UserFactorEntity, 'credentialId' | 'publicKey' | 'signCount' | 'transports'> | SummaryRow): StoredPasskey {
  const stored =
    'credential_id' in row ? { credentialId: row.credential_id, publicKey: row.public_key, signCount: row.sign_count, transports: row.transports } : row;
  return {
    credentialId: stored.credentialId ?? '',
    publicKey: stored.publicKey ?? '',
    signCount: Number(stored.signCount ?? 0),
    transports: (stored.transports ? stored.transports.split(',') : []) as AuthenticatorTransportFuture[],
  };
}
