import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { flag } from '../common/database/column-values.js';
import { statementsOf } from '../common/database/statements.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { LoginPolicyEntity } from './entities/login-policy.entity.js';
import type { MfaPolicy } from './entities/login-policy.entity.js';
import { OrganizationEntity } from './entities/organization.entity.js';

interface LoginPolicy {
  mfa: MfaPolicy;
  passkeys: boolean;
  allowRegistration: boolean;
}

/** The organization, with its stored policy if it has one (`mfa` null otherwise). */
const POLICY_SQL = `SELECT o.id, p.mfa, p.passkeys, p.allow_registration FROM organizations o LEFT JOIN login_policies p ON p.org_id = o.id WHERE o.id = ?`;

interface PolicyRow {
  mfa: MfaPolicy | null;
  passkeys: unknown;
  allow_registration: unknown;
}

/** What an organization without a stored policy gets. */
export const DEFAULT_LOGIN_POLICY: LoginPolicy = { mfa: 'optional', passkeys: true, allowRegistration: true };

/**
 * Organizations' login policies. The multi-factor fields are stored and answered; the login UI enforces
 * `allowRegistration` (it is read on use, never cached, so every process applies a change at once).
 */
@Injectable()
export class LoginPolicyService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  /** One statement: it runs at every sign-in and every authorization of a signed-in user. */
  async get(orgId: string): Promise<LoginPolicy> {
    const [row] = await statementsOf(this.dataSource).rows<PolicyRow>(POLICY_SQL, [orgId]);
    if (!row) throw DomainError.notFound('organization');
    if (row.mfa === null) return { ...DEFAULT_LOGIN_POLICY };
    return { mfa: row.mfa, passkeys: flag(row.passkeys), allowRegistration: flag(row.allow_registration) };
  }

  /** Replaces the policy; an unchanged one writes nothing. */
  set(editorUserId: string | null, orgId: string, policy: LoginPolicy): Promise<LoginPolicy> {
    return this.uow.run(async (manager) => {
      if (!(await manager.existsBy(OrganizationEntity, { id: orgId }))) throw DomainError.notFound('organization');
      const row = await manager.findOneBy(LoginPolicyEntity, { orgId });
      const current = row ? policyOf(row) : DEFAULT_LOGIN_POLICY;
      if (current.mfa === policy.mfa && current.passkeys === policy.passkeys && current.allowRegistration === policy.allowRegistration) return current;
      await manager.upsert(LoginPolicyEntity, { orgId, ...policy, changedAt: new Date() }, ['orgId']);
      await this.events.push(manager, { type: 'org.login.policy.changed', aggregateType: 'org', aggregateId: orgId, resourceOwner: orgId, editorUserId, payload: { ...policy } });
      return { ...policy };
    });
  }
}

function policyOf(row: LoginPolicyEntity): LoginPolicy {
  return { mfa: row.mfa, passkeys: Boolean(row.passkeys), allowRegistration: Boolean(row.allowRegistration) };
}
