import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { PasswordHasher } from '../../common/crypto/password-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError, ErrorCode, TooSoonError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import type { EventType } from '../../common/events/event-types.js';
import type { JsonObject } from '../../common/database/columns.js';
import { MailOutbox } from '../../mail/mail-outbox.js';
import { mailLocale } from '../../mail/mail-templates.js';
import { UserAccess } from '../acting/user-access.service.js';
import { CODE_LIFETIME_MS, UserCodes } from '../codes/user-codes.js';
import type { CodePurpose } from '../codes/user-code.entity.js';
import { InstanceEntity, INSTANCE_ID } from '../entities/instance.entity.js';
import { LoginPolicyEntity } from '../entities/login-policy.entity.js';
import { OrganizationEntity } from '../entities/organization.entity.js';
import { UserEntity } from '../entities/user.entity.js';
import { verifiedByAnother, verifiedElsewhereError } from '../queries/verified-emails.js';
import { PasswordHistory } from '../password-history/password-history.service.js';
import { assertPasswordPolicy } from '../rules/password-policy.js';
import { InstanceSettings } from '../../settings/instance-settings.service.js';
import { isInactive } from '../rules/user-state.js';
import { bump, UserLifecycleService } from '../user-lifecycle.service.js';
import { PasswordlessUsers } from '../passwordless-users.js';
import type { MailPurpose } from '../../mail/mail-message.entity.js';

/** Where each link leads in the login UI (src/login/account-links.router.ts): a password is set on the first two. */
export const ACCOUNT_LINK_PATHS: Record<Exclude<CodePurpose, 'email_verification'>, string> = {
  invitation: '/ui/login/invitation',
  password_reset: '/ui/login/password-reset',
};
export const EMAIL_VERIFICATION_PATH = '/ui/login/email-verification';
const LINK_PATHS: Record<CodePurpose, string> = { ...ACCOUNT_LINK_PATHS, email_verification: EMAIL_VERIFICATION_PATH };

/** How long an administrator waits before the same link is mailed again to a user whose earlier one is unused. */
const ADMIN_RESEND_MS = 60_000;

/** The holder of a link whose page creates a passkey instead of a password (docs/passwordless.md). */
export interface PasskeyLinkHolder extends LinkHolder {
  id: string;
  orgId: string;
}

/** What a link's page needs to know before its form is sent: whose it is, without using the code. */
export interface LinkHolder {
  userName: string;
  /** `<userName>@<organization's primary domain>`: what the person types on the sign-in page. */
  loginName: string;
  locale: string | null;
}

/**
 * Mailed links that let people help themselves (docs/mail.md): invitations, password resets and
 * e-mail verification.
 * Each queues its message in the transaction that issues the code, with an event; following the link sets the
 * password under the instance's policy, counts the e-mail as verified (the click proved it), unlocks a user
 * locked by failed checks (never an inactive one) and, as every password change, ends the user's sessions,
 * tokens and other codes.
 */
@Injectable()
export class AccountLinksService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: UserAccess,
    private readonly codes: UserCodes,
    private readonly outbox: MailOutbox,
    private readonly passwords: PasswordHasher,
    private readonly lifecycle: UserLifecycleService,
    private readonly settings: InstanceSettings,
    private readonly history: PasswordHistory,
    private readonly passwordless: PasswordlessUsers,
  ) {}

  /**
   * An administrator mails a link (`POST …/users/{userId}/invite`, `…/password/reset`, `…/email/verify`): the acting rule,
   * then a human with an address that the link can serve (409 otherwise). An earlier link of the purpose stops working.
   */
  sendByAdministrator(editorUserId: string | null, orgId: string, userId: string, purpose: CodePurpose): Promise<{ expiresAt: Date }> {
    return this.uow.run(async (manager) => {
      const user = await this.access.actOn(manager, editorUserId, orgId, userId);
      const refusal = user.type !== 'human' ? 'a machine user has no mailbox' : !user.email ? 'the user has no e-mail address' : ADMIN_REFUSALS[purpose](user);
      if (refusal) throw new DomainError(ErrorCode.Conflict, refusal);
      // The link could never verify it (docs/product-rules.md, "Verified addresses"): say so now, mail nothing.
      if (purpose === 'email_verification' && (await verifiedByAnother(manager, user.orgId, user.email!, user.id))) throw verifiedElsewhereError();
      // One mail per minute and purpose: a repeated click, or a caller with the weakest role, cannot flood a mailbox.
      const issuedAt = await this.codes.issuedAtIn(manager, user.id, purpose);
      const wait = issuedAt === undefined ? 0 : issuedAt + ADMIN_RESEND_MS - Date.now();
      if (wait > 0) throw new TooSoonError('a link of this kind was sent to this user less than a minute ago; it still works', Math.ceil(wait / 1000));
      return { expiresAt: new Date(await this.sendIn(manager, editorUserId, user, purpose)) };
    });
  }

  /** A link of `purpose` to the user's address inside the caller's transaction, with its event; when it expires. */
  async sendIn(manager: EntityManager, editorUserId: string | null, user: UserEntity, purpose: CodePurpose, payload: JsonObject = {}): Promise<number> {
    const expiresAt = await this.mailLink(manager, user, purpose);
    await this.events.push(manager, {
      type: LINK_EVENTS[purpose],
      aggregateType: 'user',
      aggregateId: user.id,
      resourceOwner: user.orgId,
      editorUserId,
      payload: { ...payload, expiresAt: new Date(expiresAt).toISOString() },
    });
    return expiresAt;
  }

  /** The notice to the address a person changed away from on the account page (docs/account.md, "Sections"): no link, no code. */
  noticeEmailChangedIn(manager: EntityManager, user: UserEntity, oldAddress: string): Promise<void> {
    return this.noticeIn(manager, user, 'email_changed', oldAddress);
  }

  /** A notice of what happened to the account, in the person's language: no link, no code. */
  private async noticeIn(manager: EntityManager, user: UserEntity, purpose: 'email_changed' | 'passkeys_replaced', recipient: string): Promise<void> {
    const org = await manager.findOneByOrFail(OrganizationEntity, { id: user.orgId });
    await this.outbox.enqueueIn(manager, {
      purpose,
      orgId: user.orgId,
      userId: user.id,
      recipient,
      locale: mailLocale(user.preferredLanguage),
      orgName: org.name,
      name: user.displayName ?? user.givenName ?? '',
    });
  }

  /** A verification link for a signing-in user the login UI stopped (`requireVerifiedEmail`); false without an address to verify. */
  sendVerification(userId: string): Promise<boolean> {
    return this.uow.run(async (manager) => {
      const user = await manager.findOneBy(UserEntity, { id: userId });
      if (!user?.email || user.emailVerified || isInactive(user)) return false;
      await this.sendIn(manager, null, user, 'email_verification', { email: user.email });
      return true;
    });
  }

  /**
   * Follows a verification link: the address it was mailed to is verified and the code used. `invalid` for a dead
   * code; `verified_elsewhere` (nothing changed, the code kept) where another user of the organization meanwhile
   * holds the address verified (docs/product-rules.md, "Verified addresses").
   */
  verifyEmail(code: string): Promise<'verified' | 'invalid' | 'verified_elsewhere'> {
    return this.uow.run(async (manager) => {
      const user = await this.liveHolderIn(manager, code, 'email_verification');
      if (!user) return 'invalid';
      if (!user.emailVerified && (await verifiedByAnother(manager, user.orgId, user.email!, user.id))) return 'verified_elsewhere';
      if (!(await this.codes.consumeIn(manager, code, 'email_verification'))) return 'invalid';
      if (!user.emailVerified) await this.markEmailVerifiedIn(manager, user);
      return 'verified';
    });
  }

  /**
   * The login policy's `inviteOnProvision` (docs/mail.md, "Invitation"), inside the transaction that created the person: an
   * active human with an e-mail and no password is invited, so the message commits with the user or not at all.
   */
  async inviteOnProvisionIn(manager: EntityManager, editorUserId: string | null, user: UserEntity): Promise<void> {
    if (user.type !== 'human' || user.passwordHash !== null || !user.email || user.state !== 'active') return;
    const policy = await manager.findOneBy(LoginPolicyEntity, { orgId: user.orgId });
    if (policy?.inviteOnProvision) await this.sendIn(manager, editorUserId, user, 'invitation');
  }

  /**
   * Forgot password, for a user the login UI resolved from a typed login name (or none): a link to a human
   * that can sign in again (active or locked) with an e-mail; nothing otherwise. The caller answers alike.
   */
  async requestReset(userId: string | undefined, clientIpHash: string): Promise<void> {
    if (userId === undefined) return;
    await this.uow.run(async (manager) => {
      const user = await manager.findOneBy(UserEntity, { id: userId });
      if (!user || user.type !== 'human' || !user.email || isInactive(user)) return;
      await this.sendIn(manager, null, user, 'password_reset', { clientIpHash });
    });
  }

  /** The holder of a live link, for its page; undefined for an unknown, used, replaced or expired one. */
  async holder(code: string, purpose: CodePurpose): Promise<LinkHolder | undefined> {
    const user = await this.liveHolderIn(this.uow.manager, code, purpose);
    if (!user) return undefined;
    const org = await this.uow.manager.findOneBy(OrganizationEntity, { id: user.orgId });
    return { userName: user.userName, loginName: org ? `${user.userName}@${org.primaryDomain}` : user.userName, locale: user.preferredLanguage };
  }

  /**
   * The holder of a live invitation or reset link who signs in with passkeys only (docs/passwordless.md): its page
   * creates a passkey, never a password. Undefined for anyone else, and for a dead link.
   */
  async passkeyHolder(code: string, purpose: keyof typeof ACCOUNT_LINK_PATHS): Promise<PasskeyLinkHolder | undefined> {
    const user = await this.liveHolderIn(this.uow.manager, code, purpose);
    if (!user || !(await this.passwordless.appliesIn(this.uow.manager, user))) return undefined;
    const org = await this.uow.manager.findOneBy(OrganizationEntity, { id: user.orgId });
    const loginName = org ? `${user.userName}@${org.primaryDomain}` : user.userName;
    return { id: user.id, orgId: user.orgId, userName: user.userName, loginName, locale: user.preferredLanguage };
  }

  /**
   * Follows a link of a passkeys-only holder: the code used, the e-mail counted as verified (the click proved it), a
   * user locked by failed checks unlocked, `enrol` run (which stores the new passkey in place of the earlier ones), and,
   * as a password set from a link does, every session, token and other link of the person ended — whoever holds a
   * lost passkey, or a session it opened, is out (docs/passwordless.md, "Recovery") — with the event, in one
   * transaction. Refused (nothing changed) as setPassword is.
   */
  enrolPasskey<T>(code: string, purpose: keyof typeof ACCOUNT_LINK_PATHS, enrol: (manager: EntityManager, user: UserEntity) => Promise<T>): Promise<T> {
    return this.uow.run(async (manager) => {
      const user = await this.liveHolderIn(manager, code, purpose);
      if (!user || !(await this.passwordless.appliesIn(manager, user)) || !(await this.codes.consumeIn(manager, code, purpose))) throw invalidLink();
      const unlocked = user.state === 'locked' ? await this.lifecycle.unlockIn(manager, null, user) : user;
      const verifiable = !unlocked.emailVerified && !(await verifiedByAnother(manager, user.orgId, user.email!, user.id));
      const verified = verifiable ? await this.markEmailVerifiedIn(manager, unlocked) : unlocked;
      const enrolled = await enrol(manager, verified);
      await this.lifecycle.endCredentialsIn(manager, user.id, undefined);
      await this.events.push(manager, {
        type: 'user.human.passkeys.replaced',
        aggregateType: 'user',
        aggregateId: user.id,
        resourceOwner: user.orgId,
        editorUserId: user.id,
        payload: { method: purpose === 'invitation' ? 'invitation' : 'recovery' },
      });
      // A recovery tells the person, as a changed address does: if it was not them, they know to ask (docs/passwordless.md).
      if (purpose !== 'invitation') await this.noticeIn(manager, verified, 'passkeys_replaced', verified.email!);
      return enrolled;
    });
  }

  /**
   * The user a live code belongs to, unless deactivated or no longer at the address the code was mailed to: a link
   * proves one mailbox, and works only while it is the user's (docs/mail.md, "Codes"). Changing the address ends
   * the user's codes as well; this holds for codes that outlive a change made by any other means.
   */
  private async liveHolderIn(manager: EntityManager, code: string, purpose: CodePurpose): Promise<UserEntity | undefined> {
    const holder = await this.codes.holderIn(manager, code, purpose);
    const user = holder && (await manager.findOneBy(UserEntity, { id: holder.userId }));
    return user && !isInactive(user) && user.email === holder.address ? user : undefined;
  }

  /**
   * Follows a link: the password is set and the code used, in one transaction. Refused (nothing changed): an
   * unknown, used, replaced or expired code, one of another purpose, an inactive user, a password the policy
   * refuses.
   */
  async setPassword(code: string, purpose: keyof typeof ACCOUNT_LINK_PATHS, password: string): Promise<void> {
    // Checked before bcrypt is spent, and again where it is written.
    const holder = await this.liveHolderIn(this.uow.manager, code, purpose);
    if (holder === undefined) throw invalidLink();
    // The instance's password policy as it is now, its history included (docs/operations.md, "Settings").
    assertPasswordPolicy(password, (await this.settings.get()).passwordPolicy);
    await this.history.assertNotReused(holder.id, password);
    const hash = await this.passwords.hash(password);
    return this.uow.run(async (manager) => {
      const user = await this.liveHolderIn(manager, code, purpose);
      if (!user || !(await this.codes.consumeIn(manager, code, purpose))) throw invalidLink();
      const unlocked = user.state === 'locked' ? await this.lifecycle.unlockIn(manager, null, user) : user;
      // The click proved the mailbox; an address another user of the organization holds verified stays unverified.
      const verifiable = !unlocked.emailVerified && !(await verifiedByAnother(manager, user.orgId, user.email!, user.id));
      const verified = verifiable ? await this.markEmailVerifiedIn(manager, unlocked) : unlocked;
      await this.lifecycle.setPasswordHashIn(manager, null, verified, hash, false, { method: purpose === 'invitation' ? 'invitation' : 'reset' });
    });
  }

  private async markEmailVerifiedIn(manager: EntityManager, user: UserEntity): Promise<UserEntity> {
    const changes = { emailVerified: true, ...bump(user) };
    await manager.update(UserEntity, { id: user.id }, changes);
    await this.events.push(manager, {
      type: 'user.human.email.verified',
      aggregateType: 'user',
      aggregateId: user.id,
      resourceOwner: user.orgId,
      editorUserId: null,
      payload: { email: user.email },
    });
    return Object.assign(user, changes);
  }

  /** A new code for the user and its message in the outbox; when the code expires. */
  private async mailLink(manager: EntityManager, user: UserEntity, purpose: CodePurpose): Promise<number> {
    const { code, expiresAt } = await this.codes.issueIn(manager, user.id, purpose, user.email!);
    const org = await manager.findOneByOrFail(OrganizationEntity, { id: user.orgId });
    // The same link creates a passkey for a passkeys-only person, and its mail says so (docs/passwordless.md).
    const passkeyMail = purpose !== 'email_verification' && (await this.passwordless.appliesIn(manager, user));
    await this.outbox.enqueueIn(manager, {
      purpose: passkeyMail ? PASSKEY_MAILS[purpose] : purpose,
      orgId: user.orgId,
      userId: user.id,
      recipient: user.email!,
      locale: mailLocale(user.preferredLanguage),
      orgName: org.name,
      name: user.displayName ?? user.givenName ?? '',
      // The link carries the code only (never a login name), in the fragment-free query of PUBLIC_URL.
      link: `${this.config.publicUrl}${LINK_PATHS[purpose]}?code=${encodeURIComponent(code)}`,
      validHours: CODE_LIFETIME_MS[purpose] / 3_600_000,
    });
    return expiresAt;
  }
}

/** What a passkeys-only person's invitation and reset links are mailed as. */
const PASSKEY_MAILS: Record<keyof typeof ACCOUNT_LINK_PATHS, MailPurpose> = { invitation: 'passkey_invitation', password_reset: 'passkey_recovery' };

/** The event each mailed link writes. */
const LINK_EVENTS: Record<CodePurpose, EventType> = {
  invitation: 'user.human.invitation.sent',
  password_reset: 'user.human.password.reset.requested',
  email_verification: 'user.human.email.verification.sent',
};

/** Why an administrator's link cannot serve a person that has an address (409), beyond a machine or no address. */
const ADMIN_REFUSALS: Record<CodePurpose, (user: UserEntity) => string | undefined> = {
  invitation: (user) => (isInactive(user) ? 'a deactivated user cannot be invited; reactivate it first' : undefined),
  password_reset: (user) => (isInactive(user) ? 'a deactivated user cannot reset its password; reactivate it first' : undefined),
  email_verification: (user) => (user.emailVerified ? 'the e-mail address is already verified' : undefined),
};

function invalidLink(): DomainError {
  return new DomainError(ErrorCode.InvalidArgument, 'this link is unknown, used, replaced by a newer one or expired');
}
