import { ApplicationApiAccess1763701200000 } from './1763701200000-application-api-access.js';
import { EventPositions1763701700000 } from './1763701700000-event-positions.js';
import { Groups1763701500000 } from './1763701500000-groups.js';
import { InitialSchema1763700000000 } from './1763700000000-initial-schema.js';
import { LoginAttempts1763700500000 } from './1763700500000-login-attempts.js';
import { LoginPolicies1763701300000 } from './1763701300000-login-policies.js';
import { Oidc1763700200000 } from './1763700200000-oidc.js';
import { OidcPartialIndexes1763700600000 } from './1763700600000-oidc-partial-indexes.js';
import { OidcPayloadAccounts1763701100000 } from './1763701100000-oidc-payload-accounts.js';
import { OrgUserCounts1763700400000 } from './1763700400000-org-user-counts.js';
import { RemovedUsers1763701000000 } from './1763701000000-removed-users.js';
import { ScimSearch1763700100000 } from './1763700100000-scim-search.js';
import { UserFactors1763701600000 } from './1763701600000-user-factors.js';
import { UserOrderVersions1763702000000 } from './1763702000000-user-order-versions.js';
import { OidcPayloadClients1763702100000 } from './1763702100000-oidc-payload-clients.js';
import { UserSearch1763701900000 } from './1763701900000-user-search.js';
import { SigningKeySchedule1763701470000 } from './1763701470000-signing-key-schedule.js';
import { IdentityProviders1763702200000 } from './1763702200000-identity-providers.js';
import { IdpRoundTrips1763702300000 } from './1763702300000-idp-round-trips.js';
import { PasswordLogin1763702400000 } from './1763702400000-password-login.js';
import { SamlUpstreams1763702500000 } from './1763702500000-saml-upstreams.js';
import { MailOutbox1763702600000 } from './1763702600000-mail-outbox.js';
import { InstanceGuard1763702700000 } from './1763702700000-instance-guard.js';
import { SamlSigningKeys1763702800000 } from './1763702800000-saml-signing-keys.js';
import { SamlApplications1763702900000 } from './1763702900000-saml-applications.js';
import { SamlSso1763703000000 } from './1763703000000-saml-sso.js';
import { OauthProfiles1763703100000 } from './1763703100000-oauth-profiles.js';
import { DeviceFlow1763703200000 } from './1763703200000-device-flow.js';
import { BackchannelLogout1763703400000 } from './1763703400000-backchannel-logout.js';
import { Provisioning1763703500000 } from './1763703500000-provisioning.js';
import { ProvisioningMembers1795760656114 } from './1795760656114-provisioning-members.js';
import { UserCodeAddresses1763800100000 } from './1763800100000-user-code-addresses.js';
import { SubjectTypes1763800200000 } from './1763800200000-subject-types.js';
import { RequestObjectRequiresExp1763800600000 } from './1763800600000-request-object-requires-exp.js';
import { ClientJwks1763800700000 } from './1763800700000-client-jwks.js';
import { SamlIdpInitiatedRelayState1795760501151 } from './1795760501151-saml-idp-initiated-relay-state.js';
import { DynamicRegistration1795762689466 } from './1795762689466-dynamic-registration.js';
import { ApiResources1795760371322 } from './1795760371322-api-resources.js';
import { UpstreamSamlSessions1795760795760 } from './1795760795760-upstream-saml-sessions.js';
import { AgentConsents1795764672233 } from './1795764672233-agent-consents.js';
import { DropApplicationAgent1795774845896 } from './1795774845896-drop-application-agent.js';
import { RegistrationTokenUses1795775000000 } from './1795775000000-registration-token-uses.js';
import { InstanceSettings1795780000000 } from './1795780000000-instance-settings.js';
import { PasswordHistory1795834593384 } from './1795834593384-password-history.js';
import { SharedSignals1795840000000 } from './1795840000000-shared-signals.js';
import { DirectoryGroups1795840100000 } from './1795840100000-directory-groups.js';
import { ApplicationSsfReceiver1795840200000 } from './1795840200000-application-ssf-receiver.js';
import { SsfStreamSubjects1795850400001 } from './1795850400001-ssf-stream-subjects.js';
import { MfaEnrolmentRequired1795850700000 } from './1795850700000-mfa-enrolment-required.js';
import { Passwordless1795850200000 } from './1795850200000-passwordless.js';
import { Branding1795850100000 } from './1795850100000-branding.js';
import { BrandingPreviews1795850800000 } from './1795850800000-branding-previews.js';
import { SamlRequestNameIdFormat1795818024363 } from './1795818024363-saml-request-name-id-format.js';
import { AuditStreams1795830241966 } from './1795830241966-audit-streams.js';
import { ProjectAccess1795760606822 } from './1795760606822-project-access.js';
import { Webhooks1763701800000 } from './1763701800000-webhooks.js';
import { OrgDomains1763800300000 } from './1763800300000-org-domains.js';
import { AgentClientPolicy1795762737314 } from './1795762737314-agent-client-policy.js';
import { ExternalResources1795763646988 } from './1795763646988-external-resources.js';
import { Migrations1795830288582 } from './1795830288582-migrations.js';
import { Directories1795830297574 } from './1795830297574-directories.js';

/** Every migration, oldest first; TypeORM runs the ones the database has not recorded. */
export const MIGRATIONS = [
  InitialSchema1763700000000,
  ScimSearch1763700100000,
  Oidc1763700200000,
  OrgUserCounts1763700400000,
  LoginAttempts1763700500000,
  OidcPartialIndexes1763700600000,
  RemovedUsers1763701000000,
  OidcPayloadAccounts1763701100000,
  ApplicationApiAccess1763701200000,
  LoginPolicies1763701300000,
  SigningKeySchedule1763701470000,
  Groups1763701500000,
  UserFactors1763701600000,
  EventPositions1763701700000,
  Webhooks1763701800000,
  UserSearch1763701900000,
  UserOrderVersions1763702000000,
  OidcPayloadClients1763702100000,
  IdentityProviders1763702200000,
  IdpRoundTrips1763702300000,
  PasswordLogin1763702400000,
  SamlUpstreams1763702500000,
  MailOutbox1763702600000,
  InstanceGuard1763702700000,
  SamlSigningKeys1763702800000,
  SamlApplications1763702900000,
  SamlSso1763703000000,
  OauthProfiles1763703100000,
  DeviceFlow1763703200000,
  BackchannelLogout1763703400000,
  Provisioning1763703500000,
  UserCodeAddresses1763800100000,
  SubjectTypes1763800200000,
  OrgDomains1763800300000,
  RequestObjectRequiresExp1763800600000,
  ClientJwks1763800700000,
  ApiResources1795760371322,
  SamlIdpInitiatedRelayState1795760501151,
  ProjectAccess1795760606822,
  ProvisioningMembers1795760656114,
  UpstreamSamlSessions1795760795760,
  DynamicRegistration1795762689466,
  AgentClientPolicy1795762737314,
  ExternalResources1795763646988,
  AgentConsents1795764672233,
  DropApplicationAgent1795774845896,
  RegistrationTokenUses1795775000000,
  InstanceSettings1795780000000,
  SamlRequestNameIdFormat1795818024363,
  AuditStreams1795830241966,
  Migrations1795830288582,
  Directories1795830297574,
  PasswordHistory1795834593384,
  SharedSignals1795840000000,
  DirectoryGroups1795840100000,
  ApplicationSsfReceiver1795840200000,
  Branding1795850100000,
  Passwordless1795850200000,
  SsfStreamSubjects1795850400001,
  MfaEnrolmentRequired1795850700000,
  BrandingPreviews1795850800000,
];
