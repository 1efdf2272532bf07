import { Module } from '@nestjs/common';
import { OidcModule } from '../oidc/oidc.module.js';
import { IdpMetadataController } from './idp-metadata.controller.js';
import { SamlKeysController } from './keys/saml-keys.controller.js';
import { SamlKeysService } from './keys/saml-keys.service.js';
import { SamlPurge } from './sso/saml-purge.js';
import { SingleLogoutService } from './sso/single-logout.service.js';
import { SsoController } from './sso/sso.controller.js';
import { SamlSsoService } from './sso/sso.service.js';

/**
 * The SAML 2.0 identity provider (docs/saml.md): the instance's signing keys, each organization's
 * metadata, single sign-on through the OIDC sign-in (the applications' hidden clients) and single logout.
 */
@Module({
  imports: [OidcModule],
  controllers: [IdpMetadataController, SamlKeysController, SsoController],
  providers: [SamlKeysService, SamlSsoService, SingleLogoutService, SamlPurge],
})
export class SamlModule {}
