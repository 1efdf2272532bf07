import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { flag, json } from '../common/database/column-values.js';
import { statementsOf } from '../common/database/statements.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { LoginPolicyEntity } from './entities/login-policy.entity.js';
import type { AgentClientPolicy, MfaPolicy } from './entities/login-policy.entity.js';
import type { DynamicRegistrationMode, PasswordlessMode } from './entities/login-policy.entity.js';
import { OrganizationEntity } from './entities/organization.entity.js';

export interface LoginPolicy {
  mfa: MfaPolicy;
  passkeys: boolean;
  allowRegistration: boolean;
  /** False: federated only (docs/federation.md, "Signing in"); the login UI takes no password. */
  passwordLogin: boolean;
  /** True: a person created with an e-mail and no password (SCIM, Bulk, management API) is invited by mail (docs/mail.md, "Invitation"). */
  inviteOnProvision: boolean;
  /** True: sign-in of a user with an unverified e-mail stops until a mailed link is followed (docs/mail.md, "E-mail verification"). */
  requireVerifiedEmail: boolean;
  /** Clients known by their Client ID Metadata Document, for the organization's resources (docs/agents.md). */
  agentClients: AgentClientPolicy;
  /** For `allowlist`: the hosts of the client ids accepted (docs/agents.md, "Client ID Metadata Documents"). */
  agentClientHosts: string[];
  /** Whether clients may register themselves for the organization (docs/agents.md, "Dynamic registration"). */
  dynamicRegistration: DynamicRegistrationMode;
  /** `allowed`: passkeys beside passwords; `required`: passkeys only, for people neither federated nor from a directory (docs/passwordless.md). */
  passwordless: PasswordlessMode;
}

/** What a client may leave out of a PUT: the fields added after the first version of the policy. */
type LaterFields = 'passwordLogin' | 'inviteOnProvision' | 'requireVerifiedEmail' | 'passwordless' | AgentFields;
type AgentFields = 'agentClients' | 'agentClientHosts' | 'dynamicRegistration';

/** At most this many hosts in an allowlist, each a host name as a URL's `hostname` has it. */
export const MAX_AGENT_CLIENT_HOSTS = 100;

/** The organization, with its stored policy if it has one (`mfa` null otherwise). */
const POLICY_SQL = `SELECT o.id, p.mfa, p.passkeys, p.allow_registration, p.password_login, p.invite_on_provision, p.require_verified_email, p.agent_clients, p.agent_client_hosts, p.dynamic_registration, p.passwordless FROM organizations o LEFT JOIN login_policies p ON p.org_id = o.id WHERE o.id = ?`;

interface PolicyRow {
  mfa: MfaPolicy | null;
  passkeys: unknown;
  allow_registration: unknown;
  password_login: unknown;
  invite_on_provision: unknown;
  require_verified_email: unknown;
  agent_clients: AgentClientPolicy | null;
  agent_client_hosts: unknown;
  dynamic_registration: DynamicRegistrationMode;
  passwordless: PasswordlessMode | null;
}

/** What an organization without a stored policy gets. */
export const DEFAULT_LOGIN_POLICY: LoginPolicy = {
  mfa: 'optional',
  passkeys: true,
  allowRegistration: true,
  passwordLogin: true,
  inviteOnProvision: false,
  requireVerifiedEmail: false,
  agentClients: 'off',
  agentClientHosts: [],
  dynamicRegistration: 'off',
  passwordless: 'off',
};

/**
 * Organizations' login policies. The multi-factor fields are stored and answered; the login UI enforces
 * `allowRegistration` (it is read on use, never cached, so every process applies a change at once; the login UI
 * shares one read among the steps of one request, src/login/login-policies.ts).
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
    return {
      mfa: row.mfa,
      passkeys: flag(row.passkeys),
      allowRegistration: flag(row.allow_registration),
      passwordLogin: flag(row.password_login),
      inviteOnProvision: flag(row.invite_on_provision),
      requireVerifiedEmail: flag(row.require_verified_email),
      agentClients: row.agent_clients ?? 'off',
      agentClientHosts: json<string[]>(row.agent_client_hosts, []),
      dynamicRegistration: row.dynamic_registration,
      passwordless: row.passwordless ?? 'off',
    };
  }

  /** Whether any organization accepts clients known by their metadata document (the RFC 8414 metadata says so). */
  async anyAgentClients(): Promise<boolean> {
    const rows = await statementsOf(this.dataSource).rows(`SELECT 1 AS one FROM login_policies WHERE agent_clients <> 'off' LIMIT 1`, []);
    return rows.length > 0;
  }

  /** Replaces the policy; an unchanged one writes nothing. */
  set(editorUserId: string | null, orgId: string, given: Omit<LoginPolicy, LaterFields> & Partial<Pick<LoginPolicy, LaterFields>>): Promise<LoginPolicy> {
    // PUT replaces the policy; a client written before a later field existed gets its default.
    const policy: LoginPolicy = {
      ...given,
      passwordLogin: given.passwordLogin ?? true,
      inviteOnProvision: given.inviteOnProvision ?? false,
      requireVerifiedEmail: given.requireVerifiedEmail ?? false,
      agentClients: given.agentClients ?? 'off',
      agentClientHosts: agentClientHosts(given.agentClientHosts ?? []),
      dynamicRegistration: given.dynamicRegistration ?? 'off',
      passwordless: given.passwordless ?? 'off',
    };
    // Passkeys only needs passkeys: a policy that refuses them would leave its people no way in.
    if (policy.passwordless !== 'off' && !policy.passkeys) throw DomainError.invalidField('passwordless', 'needs passkeys: true');
    return this.uow.run(async (manager) => {
      if (!(await manager.existsBy(OrganizationEntity, { id: orgId }))) throw DomainError.notFound('organization');
      const row = await manager.findOneBy(LoginPolicyEntity, { orgId });
      const current = row ? policyOf(row) : DEFAULT_LOGIN_POLICY;
      if ((Object.keys(policy) as (keyof LoginPolicy)[]).every((key) => JSON.stringify(current[key]) === JSON.stringify(policy[key]))) return current;
      await manager.upsert(LoginPolicyEntity, { orgId, ...policy, agentClientHosts: JSON.stringify(policy.agentClientHosts), changedAt: new Date() }, [
        'orgId',
      ]);
      await this.events.push(manager, {
        type: 'org.login.policy.changed',
        aggregateType: 'org',
        aggregateId: orgId,
        resourceOwner: orgId,
        editorUserId,
        payload: { ...policy },
      });
      return { ...policy };
    });
  }
}

function policyOf(row: LoginPolicyEntity): LoginPolicy {
  return {
    mfa: row.mfa,
    passkeys: Boolean(row.passkeys),
    allowRegistration: Boolean(row.allowRegistration),
    passwordLogin: Boolean(row.passwordLogin),
    inviteOnProvision: Boolean(row.inviteOnProvision),
    requireVerifiedEmail: Boolean(row.requireVerifiedEmail),
    agentClients: row.agentClients ?? 'off',
    agentClientHosts: json<string[]>(row.agentClientHosts, []),
    dynamicRegistration: row.dynamicRegistration,
    passwordless: row.passwordless ?? 'off',
  };
}

/**
 * The allowlist's hosts, lowercased: each a host name as the `hostname` of an https URL spells it (a name, an IPv4
 * address or a bracketed IPv6 one; no port, no wildcard), compared exactly with the host of a client id. A
 * problem is a 400 naming the entry.
 */
function agentClientHosts(given: string[]): string[] {
  if (given.length > MAX_AGENT_CLIENT_HOSTS) throw DomainError.invalidField('agentClientHosts', `at most ${MAX_AGENT_CLIENT_HOSTS} hosts`);
  const hosts = given.map((host, i) => {
    const lower = host.toLowerCase();
    if (lower.length < 1 || lower.length > 253 || URL.parse(`https://${lower}/`)?.hostname !== lower || lower.includes('*'))
      throw DomainError.invalidField(`agentClientHosts[${i}]`, 'a host name without scheme, port or path (as in client.example.com)');
    return lower;
  });
  const duplicate = hosts.findIndex((host, i) => hosts.indexOf(host) !== i);
  if (duplicate >= 0) throw DomainError.invalidField(`agentClientHosts[${duplicate}]`, 'a host is listed once');
  return hosts;
}
