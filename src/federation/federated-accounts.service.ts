import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { isUniqueViolation } from '../common/database/unique-violation.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { idpLogins } from '../common/metrics/metrics.js';
import { UserAccess } from '../users/acting/user-access.service.js';
import type { HeldRoles } from '../users/acting/acting-rule.js';
import { linkCandidates, linkedUser } from '../users/queries/link-candidates.js';
import type { LinkCandidate } from '../users/queries/link-candidates.js';
import { verifiedByAnother } from '../users/queries/verified-emails.js';
import { userNameProblem } from '../users/rules/user-name.js';
import { isActive } from '../users/rules/user-state.js';
import { UsersService } from '../users/users.service.js';
import { PasswordlessUsers } from '../users/passwordless-users.js';
import { hasIdentity, identityConflicts, insertIdentity, touchIdentity, userOfIdentity } from './federation.queries.js';
import type { IdpRow } from './federation.queries.js';
import { DEFAULT_CLAIMS } from './idp-settings.js';
import type { ClaimMapping, LinkBy, OidcSettings, SamlSettings } from './idp-settings.js';
import type { UpstreamIdentity } from './upstream-oidc.js';

/**
 * Why a federated sign-in found no local user (each a page for the person and a `user.idp.login.failed` event):
 * no rule matched and JIT is off; the link claim matched several users; the matched user holds a role; the user
 * is linked to this IdP under another subject; an e-mail link rule whose upstream did not verify the address; a JIT
 * user name that is missing, breaks the user name rule of every surface, or is taken; an upstream error or a
 * refused response; a verified answer without the IdP's subject claim.
 */
export type FederationRefusal =
  | 'no_account'
  | 'ambiguous'
  | 'holds_role'
  | 'already_linked'
  | 'unverified_email'
  | 'user_name_missing'
  | 'user_name_invalid'
  | 'user_name_taken'
  | 'upstream_error'
  | 'invalid_response'
  | 'subject_missing'
  | 'idp_initiated'
  | 'inactive_user';

/** How an IdP finds or creates its users (docs/federation.md): OIDC's `claims` or SAML's `attributes` as the mapping. */
export interface AccountRules {
  claims: ClaimMapping;
  link: { by: LinkBy; from: string } | null;
  jit: boolean;
}

/** Who an upstream identity is, decided before anything is written (`preview` shows it, `resolve` applies it). */
export type Decision =
  | { kind: 'linked'; userId: string }
  | { kind: 'link'; userId: string; by: LinkBy }
  | { kind: 'create'; user: { userName: string; firstName: string; lastName: string; email: string | undefined; emailVerified: boolean } }
  | { kind: 'refused'; reason: FederationRefusal };

export type FederationResult = { ok: true; userId: string; via: 'link' | 'linked' | 'created' } | { ok: false; reason: FederationRefusal };

/**
 * Who an upstream identity is here (docs/federation.md, "Who the upstream identity is"): an existing link wins; else the
 * IdP's `link` rule matches exactly one user of its organization (never one who holds a role: such users link
 * from a local sign-in or by an IAM_OWNER); else JIT creates the user; else there is no account. The link or the
 * user, its events and `user.idp.login.succeeded` share one transaction; a refusal writes only its event.
 */
@Injectable()
export class FederatedAccounts {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly access: UserAccess,
    private readonly users: UsersService,
    passwordless: PasswordlessUsers,
  ) {
    // A federated person's identity provider decides how it signs in, passkeys-only organization or not.
    passwordless.register(hasIdentity);
  }

  async resolve(idp: IdpRow, settings: AccountRules, identity: UpstreamIdentity): Promise<FederationResult> {
    let result: FederationResult;
    try {
      result = await this.uow.run(async (manager) => {
        const found = await this.apply(manager, idp, identity, await this.decide(manager, idp, settings, identity));
        if (found.ok) await this.succeeded(manager, idp, identity.subject, found.userId);
        return found;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // A concurrent sign-in of the same identity linked or created first, or the JIT user name is taken.
      result = { ok: false, reason: 'user_name_taken' };
    }
    if (!result.ok) await this.refused(idp, result.reason);
    else idpLogins.inc({ idp_type: idp.type, result: 'success' });
    return result;
  }

  /** What `resolve` would do with this identity, writing nothing (the test sign-in of docs/federation.md). */
  preview(idp: IdpRow, settings: AccountRules, identity: UpstreamIdentity): Promise<Decision> {
    return this.decide(this.uow.manager, idp, settings, identity);
  }

  /** A refusal before any identity was known (an upstream error, a failed token check): its event and count. */
  async refused(idp: IdpRow, reason: FederationRefusal): Promise<void> {
    idpLogins.inc({ idp_type: idp.type, result: reason });
    await this.uow.run((manager) =>
      this.events.push(manager, {
        type: 'user.idp.login.failed',
        aggregateType: 'idp',
        aggregateId: idp.id,
        resourceOwner: idp.orgId,
        editorUserId: null,
        payload: { idpId: idp.id, reason },
      }),
    );
  }

  /** Who the identity is, read only: an existing link, a user the rule matches, a user to create, or a refusal. */
  private async decide(manager: EntityManager, idp: IdpRow, settings: AccountRules, identity: UpstreamIdentity): Promise<Decision> {
    const linked = await userOfIdentity(manager, idp.id, identity.subject);
    if (linked) {
      // A deactivated or locked user stays out, whatever the upstream says (docs/federation.md, "Refusals").
      const user = await linkedUser(manager, linked);
      return user && isActive(user) ? { kind: 'linked', userId: linked } : { kind: 'refused', reason: 'inactive_user' };
    }
    if (settings.link) {
      const value = claimText(identity.claims[settings.link.from]);
      if (value !== undefined) {
        const matched = await this.matchByRule(manager, idp, settings.link.by, value, identity);
        if (matched.kind !== 'refused' || matched.reason !== 'no_account') return matched;
      }
    }
    if (settings.jit) return this.newUserOf(manager, idp, settings, identity);
    return { kind: 'refused', reason: 'no_account' };
  }

  private async apply(manager: EntityManager, idp: IdpRow, identity: UpstreamIdentity, decision: Decision): Promise<FederationResult> {
    switch (decision.kind) {
      case 'refused':
        return { ok: false, reason: decision.reason };
      case 'linked':
        return { ok: true, userId: decision.userId, via: 'link' };
      case 'link':
        await this.link(manager, idp, identity.subject, decision.userId);
        return { ok: true, userId: decision.userId, via: 'linked' };
      case 'create': {
        const { email, emailVerified, ...names } = decision.user;
        const user = await this.users.insertHuman(manager, null, idp.orgId, newId(), {
          ...names,
          email: email ?? '',
          isEmailVerified: emailVerified,
          phone: null,
          passwordHash: null,
          origin: { source: 'idp', idpId: idp.id },
        });
        await this.link(manager, idp, identity.subject, user.id);
        return { ok: true, userId: user.id, via: 'created' };
      }
    }
  }

  private async matchByRule(
    manager: EntityManager,
    idp: IdpRow,
    by: 'externalId' | 'userName' | 'email',
    value: string,
    identity: UpstreamIdentity,
  ): Promise<Decision> {
    // nOAuth: an e-mail address names a person only where the upstream verified it.
    if (by === 'email' && identity.claims.email_verified !== true) return { kind: 'refused', reason: 'unverified_email' };
    const chosen = chosenCandidate(by, await linkCandidates(manager, idp.orgId, by, value));
    if (chosen.kind === 'refused') return chosen;
    const roles = (await this.access.rolesOf(manager, [chosen.userId])).get(chosen.userId);
    if (roles && holdsAnyRole(roles)) return { kind: 'refused', reason: 'holds_role' };
    if ((await identityConflicts(manager, idp.id, identity.subject, chosen.userId)).userLinked) return { kind: 'refused', reason: 'already_linked' };
    return chosen;
  }

  private async newUserOf(manager: EntityManager, idp: IdpRow, settings: AccountRules, identity: UpstreamIdentity): Promise<Decision> {
    const decision = mappedUser(settings.claims, identity.claims);
    if (decision.kind !== 'create') return decision;
    const { userName, email } = decision.user;
    if ((await linkCandidates(manager, idp.orgId, 'userName', userName)).length > 0) return { kind: 'refused', reason: 'user_name_taken' };
    // The address arrives as the upstream says, but never verified where another user of the organization holds it
    // verified (docs/federation.md, "Who the upstream identity is"): the person gets the account, not the trust.
    if (email !== undefined && decision.user.emailVerified && (await verifiedByAnother(manager, idp.orgId, email, null))) {
      return { kind: 'create', user: { ...decision.user, emailVerified: false } };
    }
    return decision;
  }

  private async link(manager: EntityManager, idp: IdpRow, subject: string, userId: string): Promise<void> {
    await insertIdentity(manager, { idpId: idp.id, subject, userId, linkedAt: Date.now(), lastUsedAt: null });
    await this.events.push(manager, {
      type: 'user.idp.link.added',
      aggregateType: 'user',
      aggregateId: userId,
      resourceOwner: idp.orgId,
      editorUserId: null,
      payload: { idpId: idp.id, subject },
    });
  }

  private async succeeded(manager: EntityManager, idp: IdpRow, subject: string, userId: string): Promise<void> {
    await touchIdentity(manager, idp.id, subject, Date.now());
    await this.events.push(manager, {
      type: 'user.idp.login.succeeded',
      aggregateType: 'user',
      aggregateId: userId,
      resourceOwner: idp.orgId,
      editorUserId: userId,
      payload: { idpId: idp.id },
    });
  }
}

/** The rules of an IdP's settings: a SAML IdP's `attributes` are its mapping as an OIDC IdP's `claims` are. */
export function accountRulesOf(settings: OidcSettings | SamlSettings): AccountRules {
  return { claims: 'attributes' in settings ? settings.attributes : settings.claims, link: settings.link, jit: settings.jit };
}

/**
 * The one user a link rule's value matched, before its roles and links are read: a human, alone, active. For an
 * e-mail link only a user holding the address verified is a candidate at all (docs/federation.md, "Who the upstream
 * identity is"): an unverified copy is nobody's, so the sign-in goes on to JIT as if it were not there.
 */
export function chosenCandidate(by: LinkBy, candidates: readonly LinkCandidate[]): Extract<Decision, { kind: 'link' | 'refused' }> {
  const humans = candidates.filter((c) => c.type === 'human' && (by !== 'email' || c.emailVerified));
  if (humans.length === 0) return { kind: 'refused', reason: 'no_account' };
  if (humans.length > 1) return { kind: 'refused', reason: 'ambiguous' };
  const [user] = humans;
  if (!isActive(user)) return { kind: 'refused', reason: 'inactive_user' };
  return { kind: 'link', userId: user.id, by };
}

/** Whether a user holds any role, instance-wide or in any organization: such a user is never linked automatically. */
export function holdsAnyRole(roles: HeldRoles): boolean {
  return roles.instanceRoles.size > 0 || [...roles.orgRoles.values()].some((r) => r.size > 0);
}

/**
 * The user JIT would create from the mapped claims (the standard claims where the mapping names none), before the
 * database is asked whether the name is taken or the address verified by another user.
 */
export function mappedUser(mapping: ClaimMapping, claims: Record<string, unknown>): Extract<Decision, { kind: 'create' | 'refused' }> {
  const claim = (key: keyof typeof DEFAULT_CLAIMS) => {
    const name = mapping[key] ?? DEFAULT_CLAIMS[key];
    return name === undefined ? undefined : claimText(claims[name]);
  };
  const userName = claim('userName');
  if (userName === undefined) return { kind: 'refused', reason: 'user_name_missing' };
  // The rule of every other surface (docs/product-rules.md, "Domain"): an upstream is no more trusted with names.
  if (userNameProblem(userName) !== undefined) return { kind: 'refused', reason: 'user_name_invalid' };
  const email = claim('email');
  return {
    kind: 'create',
    user: {
      userName,
      firstName: claim('givenName') ?? '',
      lastName: claim('familyName') ?? '',
      email,
      emailVerified: email !== undefined && claims.email_verified === true,
    },
  };
}

/** A claim as text: a non-empty string of at most 255 characters (the longest user field it fills), else nothing. */
export function claimText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  return text.length > 0 && text.length <= 255 ? text : undefined;
}
