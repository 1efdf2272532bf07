import { IdentityProviderEntity, IdpDomainEntity, SamlAssertionSeenEntity } from './federation/identity-provider.entity.js';
import { IdpRoundTripEntity, UserIdentityEntity } from './federation/user-identity.entity.js';
import { UpstreamSamlSessionEntity } from './federation/upstream-saml-session.entity.js';
import { AgentConsentEntity } from './agents/consent/agent-consent.entity.js';
import { ApplicationEntity } from './users/entities/application.entity.js';
import { EventEntity } from './common/events/event.entity.js';
import { FeatureEntity } from './users/entities/feature.entity.js';
import { GroupEntity } from './users/entities/group.entity.js';
import { GroupMemberEntity } from './users/entities/group-member.entity.js';
import { ProjectGrantEntity } from './users/project-access/project-grant.entity.js';
import { ProjectRoleEntity } from './users/project-access/project-role.entity.js';
import { InstanceEntity } from './users/entities/instance.entity.js';
import { AgentRegistrationTokenEntity, DynamicClientEntity } from './agents/registration/dynamic-registration.entities.js';
import { LoginPolicyEntity } from './users/entities/login-policy.entity.js';
import { MachineSecretEntity } from './users/entities/machine-secret.entity.js';
import { MembershipEntity } from './users/entities/membership.entity.js';
import { OidcPayloadEntity } from './oidc/adapter/oidc-payload.entity.js';
import { OrganizationEntity } from './users/entities/organization.entity.js';
import { PersonalAccessTokenEntity } from './users/entities/personal-access-token.entity.js';
import { ProjectEntity } from './users/entities/project.entity.js';
import { PublicKeyEntity } from './users/entities/public-key.entity.js';
import { SigningKeyEntity } from './oidc/keys/signing-key.entity.js';
import { SamlSigningKeyEntity } from './saml/keys/saml-signing-key.entity.js';
import { SamlApplicationEntity } from './users/entities/saml-application.entity.js';
import { UserContactEntity } from './users/entities/user-contact.entity.js';
import { UserEntity } from './users/entities/user.entity.js';
import { UserFactorEntity } from './users/entities/user-factor.entity.js';
import { RecoveryCodeEntity } from './users/entities/recovery-code.entity.js';
import { MfaOfferSkipEntity } from './users/entities/mfa-offer-skip.entity.js';
import { MailMessageEntity } from './mail/mail-message.entity.js';
import { UserCodeEntity } from './users/codes/user-code.entity.js';
import { ExternalResourceEntity } from './agents/external-resources/external-resource.entity.js';
import { MigrationRunEntity } from './migrations/migration-run.entity.js';
import { MigratedObjectEntity } from './migrations/migrated-object.entity.js';
import { WebhookDeliveryEntity } from './webhooks/webhook-delivery.entity.js';
import { WebhookDispatcherEntity } from './webhooks/webhook-dispatcher.entity.js';
import { WebhookSubscriptionEntity } from './webhooks/webhook-subscription.entity.js';

/**
 * Every table mapping of the application, for the data source. It lives at the top of src/, beside the
 * modules it names, because src/common must not depend on domain modules (docs/architecture.md).
 * An explicit list, not a glob: a file that is not listed here is not part of the schema.
 */
export const ENTITIES = [
  InstanceEntity,
  FeatureEntity,
  OrganizationEntity,
  UserEntity,
  MembershipEntity,
  ProjectEntity,
  ApplicationEntity,
  PublicKeyEntity,
  MachineSecretEntity,
  PersonalAccessTokenEntity,
  EventEntity,
  OidcPayloadEntity,
  SigningKeyEntity,
  SamlSigningKeyEntity,
  SamlApplicationEntity,
  UserContactEntity,
  LoginPolicyEntity,
  GroupEntity,
  GroupMemberEntity,
  ProjectRoleEntity,
  ProjectGrantEntity,
  UserFactorEntity,
  RecoveryCodeEntity,
  MfaOfferSkipEntity,
  WebhookSubscriptionEntity,
  MailMessageEntity,
  UserCodeEntity,
  WebhookDeliveryEntity,
  WebhookDispatcherEntity,
  IdentityProviderEntity,
  IdpDomainEntity,
  UserIdentityEntity,
  IdpRoundTripEntity,
  SamlAssertionSeenEntity,
  UpstreamSamlSessionEntity,
  AgentRegistrationTokenEntity,
  DynamicClientEntity,
  ExternalResourceEntity,
  AgentConsentEntity,
  MigrationRunEntity,
  MigratedObjectEntity,
];
