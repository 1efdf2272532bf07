import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { AdminModule } from './admin/admin.module.js';
import { BrandingModule } from './branding/branding.module.js';
import { AuditModule } from './audit/audit.module.js';
import { CommonModule } from './common/common.module.js';
import type { AppConfig } from './common/config/config.js';
import { ProvisioningModule } from './provisioning/provisioning.module.js';
import { ScimModule } from './scim/scim.module.js';
import { FederationModule } from './federation/federation.module.js';
import { MigrationsModule } from './migrations/migrations.module.js';
import { DirectoriesModule } from './directories/directories.module.js';
import { OidcModule } from './oidc/oidc.module.js';
import { SamlModule } from './saml/saml.module.js';
import { SettingsModule } from './settings/settings.module.js';
import { SignalsModule } from './signals/signals.module.js';
import { UsersModule } from './users/users.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { ENTITIES } from './entities.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CommonModule.forRoot(config, ENTITIES),
        SettingsModule,
        BrandingModule,
        UsersModule,
        AdminModule,
        ScimModule,
        OidcModule,
        WebhooksModule,
        FederationModule,
        MigrationsModule,
        DirectoriesModule,
        SamlModule,
        ProvisioningModule,
        AuditModule,
        SignalsModule,
      ],
    };
  }
}
