import { Column, Entity, PrimaryColumn } from 'typeorm';
import { timestampColumn } from '../../common/database/columns.js';

export const MFA_POLICIES = ['off', 'optional', 'required'] as const;
export type MfaPolicy = (typeof MFA_POLICIES)[number];

/** Whether the organization's resources accept clients known by their Client ID Metadata Document (docs/agents.md). */
export const AGENT_CLIENT_POLICIES = ['off', 'consent', 'allowlist'] as const;
export type AgentClientPolicy = (typeof AGENT_CLIENT_POLICIES)[number];

/** How an organization takes clients that register themselves (RFC 7591; docs/agents.md, "Dynamic registration"). */
export const DYNAMIC_REGISTRATION_MODES = ['off', 'initialAccessToken', 'open'] as const;
export type DynamicRegistrationMode = (typeof DYNAMIC_REGISTRATION_MODES)[number];

/** Whether the organization's people sign in with passkeys only (docs/passwordless.md). */
export const PASSWORDLESS_MODES = ['off', 'allowed', 'required'] as const;
export type PasswordlessMode = (typeof PASSWORDLESS_MODES)[number];

/** How an organization's users sign in. */
@Entity({ name: 'login_policies' })
export class LoginPolicyEntity {
  @PrimaryColumn({ name: 'org_id', type: 'varchar', length: 64 })
  orgId: string;

  @Column({ type: 'varchar', length: 16 })
  mfa: MfaPolicy;

  @Column({ type: 'boolean' })
  passkeys: boolean;

  /** Whether the login UI offers self-registration for the organization's applications. */
  @Column({ name: 'allow_registration', type: 'boolean' })
  allowRegistration: boolean;

  /** Whether the login UI takes passwords; false: the organization signs in through its identity providers only. */
  @Column({ name: 'password_login', type: 'boolean', default: true })
  passwordLogin: boolean;

  /** Whether a person created with an e-mail and no password is sent an invitation (docs/mail.md, "Invitation"). */
  @Column({ name: 'invite_on_provision', type: 'boolean', default: false })
  inviteOnProvision: boolean;

  /** Whether sign-in stops until the user's e-mail address is verified (docs/mail.md, "E-mail verification"). */
  @Column({ name: 'require_verified_email', type: 'boolean', default: false })
  requireVerifiedEmail: boolean;

  /** Which clients known by a metadata document may obtain tokens for the organization's resources (docs/agents.md). */
  @Column({ name: 'agent_clients', type: 'varchar', length: 16, default: 'off' })
  agentClients: AgentClientPolicy;

  /** For `allowlist`: the host names whose metadata documents are accepted (a JSON array). */
  @Column({ name: 'agent_client_hosts', type: 'text', nullable: true })
  agentClientHosts: string | null;

  /** Whether clients may register themselves for the organization (docs/agents.md, "Dynamic registration"). */
  @Column({ name: 'dynamic_registration', type: 'varchar', length: 24, default: 'off' })
  dynamicRegistration: DynamicRegistrationMode;

  /** `required`: passkeys only, no password page, recovery by a mailed link and a recovery code (docs/passwordless.md). */
  @Column({ type: 'varchar', length: 16, default: 'off' })
  passwordless: PasswordlessMode;

  @Column({ name: 'changed_at', ...timestampColumn })
  changedAt: Date;
}
