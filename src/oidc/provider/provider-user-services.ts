import { Injectable } from '@nestjs/common';
import { UserAccess } from '../../users/acting/user-access.service.js';
import { FeaturesService } from '../../users/features.service.js';
import { LoginPolicyService } from '../../users/login-policy.service.js';
import { AccountFinder } from '../account/account.finder.js';
import { ApplicationEntry } from '../../login/application-entry.js';
import { IdJagServices } from '../../agents/id-jag/id-jag.services.js';
import { InstanceSettings } from '../../settings/instance-settings.service.js';

/**
 * The users domain as the provider consults it on every build: its accounts, the instance's features, who may act
 * for whom (impersonation, token exchange), each organization's login policy, who may enter which application and
 * enterprise-managed authorization's services, and the instance's settings (token lifetimes, read on use). One parameter of ProviderInputs,
 * which keeps it within the sign-in path's constructor width (docs/architecture.md, "Constructor width").
 */
@Injectable()
export class ProviderUserServices {
  constructor(
    readonly accounts: AccountFinder,
    readonly features: FeaturesService,
    readonly access: UserAccess,
    readonly loginPolicies: LoginPolicyService,
    readonly entry: ApplicationEntry,
    readonly idJag: IdJagServices,
    readonly settings: InstanceSettings,
  ) {}
}
