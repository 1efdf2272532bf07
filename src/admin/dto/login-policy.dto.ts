import { ApiProperty } from '@nestjs/swagger';
import { IsArray, IsBoolean, IsIn, IsOptional, IsString } from 'class-validator';
import { AGENT_CLIENT_POLICIES, DYNAMIC_REGISTRATION_MODES, MFA_POLICIES, PASSWORDLESS_MODES } from '../../users/entities/login-policy.entity.js';
import type { AgentClientPolicy, DynamicRegistrationMode, MfaPolicy, PasswordlessMode } from '../../users/entities/login-policy.entity.js';

/** An organization's whole login policy (PUT replaces it; every field is required). */
export class LoginPolicyDto {
  @ApiProperty({ enum: MFA_POLICIES, description: 'multi-factor sign-in: off, optional or required' })
  @IsIn(MFA_POLICIES, { message: `mfa must be one of ${MFA_POLICIES.join(', ')}` })
  mfa: MfaPolicy;

  @ApiProperty({ description: 'whether passkeys may be registered and used' })
  @IsBoolean()
  passkeys: boolean;

  @ApiProperty({ description: 'whether the login UI offers self-registration for this organization’s applications' })
  @IsBoolean()
  allowRegistration: boolean;

  @ApiProperty({
    required: false,
    default: true,
    description: 'whether the login UI takes passwords; false: sign-in only through the organization’s identity providers (docs/federation.md, "Signing in")',
  })
  @IsOptional()
  @IsBoolean()
  passwordLogin?: boolean;

  @ApiProperty({
    required: false,
    default: false,
    description:
      'whether a person created with an e-mail and no password (by SCIM, Bulk or this API) is mailed an invitation to set one (docs/mail.md, "Invitation")',
  })
  @IsOptional()
  @IsBoolean()
  inviteOnProvision?: boolean;

  @ApiProperty({
    required: false,
    default: false,
    description: 'whether sign-in stops until the user has followed a mailed link that verifies its e-mail address (docs/mail.md, "E-mail verification")',
  })
  @IsOptional()
  @IsBoolean()
  requireVerifiedEmail?: boolean;

  @ApiProperty({
    required: false,
    enum: AGENT_CLIENT_POLICIES,
    default: 'off',
    description:
      'clients known by their Client ID Metadata Document (an https client_id) for this organization’s resources: off, consent (any such client, the person consents) or allowlist (only hosts of agentClientHosts) (docs/agents.md, "Client ID Metadata Documents")',
  })
  @IsOptional()
  @IsIn(AGENT_CLIENT_POLICIES, { message: `agentClients must be one of ${AGENT_CLIENT_POLICIES.join(', ')}` })
  agentClients?: AgentClientPolicy;

  @ApiProperty({
    required: false,
    type: [String],
    default: [],
    description: 'for agentClients allowlist: the hosts (as client.example.com, no port) whose client ids are accepted; at most 100',
  })
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  agentClientHosts?: string[];

  @ApiProperty({
    required: false,
    default: 'off',
    enum: DYNAMIC_REGISTRATION_MODES,
    description:
      'whether clients may register themselves (RFC 7591): off; initialAccessToken (only with a token from …/agent-registration-tokens); open (anyone, bound to this organization by the resource of its first code) (docs/agents.md, "Dynamic registration")',
  })
  @IsOptional()
  @IsIn(DYNAMIC_REGISTRATION_MODES, { message: `dynamicRegistration must be one of ${DYNAMIC_REGISTRATION_MODES.join(', ')}` })
  dynamicRegistration?: DynamicRegistrationMode;

  @ApiProperty({
    required: false,
    default: 'off',
    enum: PASSWORDLESS_MODES,
    description:
      'passkeys without passwords: off; allowed (a passkey sign-in beside the password); required (the organization’s people sign in with passkeys only, enrol from an invitation or a verified e-mail link, recover with a mailed link and a recovery code, and no password can be set for them: 409; federated and directory users are not affected; needs passkeys: true) (docs/passwordless.md)',
  })
  @IsOptional()
  @IsIn(PASSWORDLESS_MODES, { message: `passwordless must be one of ${PASSWORDLESS_MODES.join(', ')}` })
  passwordless?: PasswordlessMode;
}
