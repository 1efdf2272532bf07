import { Module } from '@nestjs/common';
import { IdpMetadataController } from './idp-metadata.controller.js';
import { SamlKeysController } from './keys/saml-keys.controller.js';
import { SamlKeysService } from './keys/saml-keys.service.js';

/** The SAML 2.0 identity provider (DESIGN §15; docs/saml.md): so far its signing keys and each organization's metadata. */
@Module({
  controllers: [IdpMetadataController, SamlKeysController],
  providers: [SamlKeysService],
})
export class SamlModule {}
