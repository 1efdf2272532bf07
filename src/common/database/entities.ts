import { EventEntity } from '../events/event.entity.js';
import { ApplicationEntity } from '../../users/entities/application.entity.js';
import { FeatureEntity } from '../../users/entities/feature.entity.js';
import { InstanceEntity } from '../../users/entities/instance.entity.js';
import { MachineSecretEntity } from '../../users/entities/machine-secret.entity.js';
import { MembershipEntity } from '../../users/entities/membership.entity.js';
import { OrganizationEntity } from '../../users/entities/organization.entity.js';
import { PersonalAccessTokenEntity } from '../../users/entities/personal-access-token.entity.js';
import { ProjectEntity } from '../../users/entities/project.entity.js';
import { PublicKeyEntity } from '../../users/entities/public-key.entity.js';
import { UserEntity } from '../../users/entities/user.entity.js';
import { UserContactEntity } from '../../users/entities/user-contact.entity.js';
import { InitialSchema1763700000000 } from './migrations/1763700000000-initial-schema.js';
import { ScimSearch1763700100000 } from './migrations/1763700100000-scim-search.js';
import { Oidc1763700200000 } from './migrations/1763700200000-oidc.js';
import { OrgUserCounts1763700400000 } from './migrations/1763700400000-org-user-counts.js';
import { LoginAttempts1763700500000 } from './migrations/1763700500000-login-attempts.js';
import { RemovedUsers1763701000000 } from './migrations/1763701000000-removed-users.js';
import { OidcPayloadAccounts1763701100000 } from './migrations/1763701100000-oidc-payload-accounts.js';
import { ApplicationApiAccess1763701200000 } from './migrations/1763701200000-application-api-access.js';
import { LoginPolicies1763701300000 } from './migrations/1763701300000-login-policies.js';
import { SigningKeySchedule1763701470000 } from './migrations/1763701470000-signing-key-schedule.js';
import { GroupEntity } from '../../users/entities/group.entity.js';
import { GroupMemberEntity } from '../../users/entities/group-member.entity.js';
import { Groups1763701500000 } from './migrations/1763701500000-groups.js';
import { LoginPolicyEntity } from '../../users/entities/login-policy.entity.js';
import { OidcPartialIndexes1763700600000 } from './migrations/1763700600000-oidc-partial-indexes.js';
import { OidcPayloadEntity } from '../../oidc/adapter/oidc-payload.entity.js';
import { SigningKeyEntity } from '../../oidc/keys/signing-key.entity.js';

// Explicit lists, not globs (STYLE §8): a file that is not listed here is not part of the schema.
// `common` names the domain's entities only as table mappings; it imports no domain logic.
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
  UserContactEntity,
  LoginPolicyEntity,
  GroupEntity,
  GroupMemberEntity,
];

export const MIGRATIONS = [InitialSchema1763700000000, ScimSearch1763700100000, Oidc1763700200000, OrgUserCounts1763700400000, LoginAttempts1763700500000, OidcPartialIndexes1763700600000, RemovedUsers1763701000000, OidcPayloadAccounts1763701100000, ApplicationApiAccess1763701200000, LoginPolicies1763701300000, SigningKeySchedule1763701470000, Groups1763701500000];
