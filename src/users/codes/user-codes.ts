import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { generateSecret, SecretHasher } from '../../common/crypto/secret-hasher.js';
import { newId } from '../../common/ids.js';
import { UserCodeEntity } from './user-code.entity.js';
import type { CodePurpose } from './user-code.entity.js';

/** How long a link works (docs/mail.md, "Codes"): reset 1 h, e-mail verification 24 h, invitation 7 days. */
export const CODE_LIFETIME_MS: Record<CodePurpose, number> = {
  password_reset: 3_600_000,
  email_verification: 86_400_000,
  invitation: 7 * 86_400_000,
};

export interface IssuedCode {
  /** `<id>.<secret>`: what the link carries; 256 bits of secret. Never stored, logged or put in an event. */
  code: string;
  expiresAt: number;
}

/** Whose a live code is, and the address it was mailed to. */
export interface CodeHolder {
  userId: string;
  address: string;
}

/**
 * One-time codes of mailed links (docs/mail.md, "Codes"). The id finds the row; the secret is compared in
 * constant time with its HMAC; a code is used by deleting its row, so two requests with one code cannot both
 * succeed. Lookups read state in the caller's transaction.
 */
@Injectable()
export class UserCodes {
  constructor(private readonly hasher: SecretHasher) {}

  /** A new code mailed to `address`, replacing the user's earlier codes of the same purpose. */
  async issueIn(manager: EntityManager, userId: string, purpose: CodePurpose, address: string, now = Date.now()): Promise<IssuedCode> {
    const secret = generateSecret();
    const row = { id: newId(), userId, purpose, address, secretHash: this.hasher.hash(secret), createdAt: now, expiresAt: now + CODE_LIFETIME_MS[purpose] };
    await manager.delete(UserCodeEntity, { userId, purpose });
    await manager.insert(UserCodeEntity, row);
    return { code: `${row.id}.${secret}`, expiresAt: row.expiresAt };
  }

  /** When the user's live, unused code of this purpose was issued (undefined: none). */
  async issuedAtIn(manager: EntityManager, userId: string, purpose: CodePurpose, now = Date.now()): Promise<number | undefined> {
    const row = await manager.findOneBy(UserCodeEntity, { userId, purpose });
    return row && row.expiresAt > now ? row.createdAt : undefined;
  }

  /** The holder of a live code of this purpose, without using it (to show the page the link opens). */
  async holderIn(manager: EntityManager, code: string, purpose: CodePurpose, now = Date.now()): Promise<CodeHolder | undefined> {
    const row = await this.liveRow(manager, code, purpose, now);
    return row && { userId: row.userId, address: row.address };
  }

  /** Uses the code: its holder, or undefined for an unknown, used, replaced, expired or other-purpose code. */
  async consumeIn(manager: EntityManager, code: string, purpose: CodePurpose, now = Date.now()): Promise<CodeHolder | undefined> {
    const row = await this.liveRow(manager, code, purpose, now);
    if (!row) return undefined;
    const { affected } = await manager.delete(UserCodeEntity, { id: row.id });
    return affected === 1 ? { userId: row.userId, address: row.address } : undefined;
  }

  /**
   * Every code of the user ends: a password change, and a change of the user's address, since a link mailed to
   * the old address must neither verify the new one nor set a password for whoever holds it (docs/mail.md, "Codes").
   */
  async revokeAllIn(manager: EntityManager, userId: string): Promise<void> {
    await manager.delete(UserCodeEntity, { userId });
  }

  private async liveRow(manager: EntityManager, code: string, purpose: CodePurpose, now: number): Promise<UserCodeEntity | undefined> {
    const dot = code.indexOf('.');
    if (dot <= 0 || code.length > 200) return undefined;
    const row = await manager.findOneBy(UserCodeEntity, { id: code.slice(0, dot) });
    if (!row || row.purpose !== purpose || row.expiresAt <= now) return undefined;
    return this.hasher.matches(code.slice(dot + 1), row.secretHash) ? row : undefined;
  }
}
