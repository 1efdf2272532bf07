import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
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

  async get(orgId: string): Promise<LoginPolicy> {
    const row = await this.dataSource.getRepository(LoginPolicyEntity).findOneBy({ orgId });
    if (row) return policyOf(row);
    if (!(await this.dataSource.getRepository(OrganizationEntity).existsBy({ id: orgId }))) throw DomainError.notFound('organization');
    return { ...DEFAULT_LOGIN_POLICY };
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
