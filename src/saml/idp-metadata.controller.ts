import { Controller, Get, Header, Inject, Param } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../common/auth/authenticated.decorator.js';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { DomainError } from '../common/errors/domain-error.js';
import { organizationExists } from '../users/queries/organizations.js';
import { idpMetadataXml } from './idp-metadata.js';
import { SamlKeysService } from './keys/saml-keys.service.js';

/** An organization's SAML IdP metadata (docs/saml.md, "Metadata"): public, as SAML Metadata §4.1 publishes it. */
@ApiTags('saml')
@Controller('saml/v2/:orgId')
export class IdpMetadataController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly keys: SamlKeysService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metadata')
  @Public()
  @Header('Content-Type', 'application/samlmetadata+xml; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({ summary: "The organization's SAML 2.0 IdP metadata: entity id, endpoints, signing certificates" })
  @ApiProduces('application/samlmetadata+xml')
  @ApiOkResponse({ description: 'an md:EntityDescriptor with one md:IDPSSODescriptor (SAML Metadata §2.4.3)' })
  @ApiNotFoundResponse({ description: 'no such organization' })
  async metadata(@Param('orgId') orgId: string): Promise<string> {
    if (!(await organizationExists(this.dataSource, orgId))) throw DomainError.notFound('organization');
    return idpMetadataXml(this.config.publicUrl, orgId, await this.keys.publishedCertificates());
  }
}
