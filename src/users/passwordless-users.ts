import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { LoginPolicyEntity } from './entities/login-policy.entity.js';

/** Whether a user's sign-in belongs to someone else (an identity provider, a directory): asked inside the caller's transaction. */
export type SignInKeeper = (manager: EntityManager, userId: string) => Promise<boolean>;

/**
 * The login policy `passwordless: "required"` as it bears on passwords (docs/passwordless.md): its organization's
 * people sign in with passkeys only, so no password is set for them, by any door (the management API, SCIM, a
 * create, the account page, a mailed link). People whose sign-in an identity provider or a directory keeps are not
 * affected: those rooms register here, so this room reads none of their tables.
 */
@Injectable()
export class PasswordlessUsers {
  private readonly keepers: SignInKeeper[] = [];

  constructor(private readonly uow: UnitOfWork) {}

  register(keeper: SignInKeeper): void {
    this.keepers.push(keeper);
  }

  /** Whether the organization requires passkeys only. */
  async requiredIn(manager: EntityManager, orgId: string): Promise<boolean> {
    const policy = await manager.findOne(LoginPolicyEntity, { where: { orgId }, select: { orgId: true, passwordless: true } });
    return policy?.passwordless === 'required';
  }

  /** Whether the user signs in with passkeys only: its organization requires it, and no keeper owns its sign-in. */
  async appliesIn(manager: EntityManager, user: { id: string; orgId: string }): Promise<boolean> {
    if (!(await this.requiredIn(manager, user.orgId))) return false;
    for (const keeper of this.keepers) if (await keeper(manager, user.id)) return false;
    return true;
  }

  /** The same outside a transaction (the account page asks it once per request). */
  applies(user: { id: string; orgId: string }): Promise<boolean> {
    return this.appliesIn(this.uow.manager, user);
  }

  /** 409, changing nothing, when a password is about to be set for a user who signs in with passkeys only. */
  async assertPasswordAllowedIn(manager: EntityManager, user: { id: string; orgId: string }): Promise<void> {
    if (await this.appliesIn(manager, user)) throw passwordRefused();
  }

  /** The same for a person created with a password: nobody links a user that does not exist yet. */
  async assertNewPasswordAllowedIn(manager: EntityManager, orgId: string): Promise<void> {
    if (await this.requiredIn(manager, orgId)) throw passwordRefused();
  }
}

function passwordRefused(): DomainError {
  return new DomainError(
    ErrorCode.Conflict,
    'the organization signs in with passkeys only (login policy passwordless: required): no password can be set for this user (docs/passwordless.md)',
  );
}
