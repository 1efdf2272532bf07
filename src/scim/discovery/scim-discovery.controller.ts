import { All, Controller, Get, Param, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../common/auth/authenticated.decorator.js';
import { ScimError } from '../errors/scim-error.js';
import { ScimExceptionFilter } from '../errors/scim-exception.filter.js';
import { ScimOrgGuard } from '../http/scim-org.guard.js';
import { listResponse } from '../scim-list.response.js';
import { ScimUrls } from '../http/scim-urls.js';
import { resourceTypes, schemaResources, serviceProviderConfig } from './discovery.documents.js';

/**
 * Discovery (RFC 7644 §4): readable without a token, so a client can learn the configuration before
 * it is set up. Methods other than GET answer 405.
 */
@ApiExcludeController()
@Controller('scim/v2/:orgId')
@UseFilters(ScimExceptionFilter)
@UseGuards(ScimOrgGuard)
export class ScimDiscoveryController {
  constructor(private readonly urls: ScimUrls) {}

  @Get('ServiceProviderConfig')
  @Public()
  serviceProviderConfig(@Param('orgId') orgId: string) {
    return serviceProviderConfig(this.urls.base(orgId));
  }

  @Get('Schemas')
  @Public()
  schemas(@Param('orgId') orgId: string) {
    const all = schemaResources(this.urls.base(orgId));
    return listResponse(all, all.length);
  }

  @Get('Schemas/:id')
  @Public()
  schema(@Param('orgId') orgId: string, @Param('id') id: string) {
    const found = schemaResources(this.urls.base(orgId)).find((s) => s.id.toLowerCase() === id.toLowerCase());
    if (!found) throw ScimError.notFound(`schema ${id} not found`);
    return found;
  }

  @Get('ResourceTypes')
  @Public()
  resourceTypes(@Param('orgId') orgId: string) {
    const all = resourceTypes(this.urls.base(orgId));
    return listResponse(all, all.length);
  }

  @Get('ResourceTypes/:name')
  @Public()
  resourceType(@Param('orgId') orgId: string, @Param('name') name: string) {
    const found = resourceTypes(this.urls.base(orgId)).find((t) => t.name.toLowerCase() === name.toLowerCase());
    if (!found) throw ScimError.notFound(`resource type ${name} not found`);
    return found;
  }

  @All(['ServiceProviderConfig', 'Schemas', 'Schemas/:id', 'ResourceTypes', 'ResourceTypes/:name'])
  @Public()
  readOnly(): never {
    throw ScimError.methodNotAllowed('GET, HEAD', 'discovery endpoints are read-only (RFC 7644 §4)');
  }
}
