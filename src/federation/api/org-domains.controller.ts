import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { OrgDomainsService } from '../domains/org-domains.service.js';
import { AddOrgDomainDto, OrgDomainDto, OrgDomainListDto, OrgDomainVerifiedDto } from './org-domains.dto.js';
import { ListSearchQueryDto, searchedList } from '../../common/http/validation/list-page.dto.js';

/** An organization's domains, which its IdPs may claim once verified (docs/federation.md, "Organization domains"). */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/domains')
export class OrgDomainsController {
  constructor(private readonly domains: OrgDomainsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Add a domain',
    description: 'Unverified until its challenge is published as a DNS TXT record or an HTTPS file and verify finds it.',
  })
  @ApiCreatedResponse({ type: OrgDomainDto })
  @ApiBadRequestResponse({ description: 'not a domain name, or a name under the instance domain' })
  @ApiConflictResponse({ description: 'the domain is already a domain of an organization of this instance' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  add(@Caller() caller: Principal, @Param('orgId') orgId: string, @Body() dto: AddOrgDomainDto): Promise<OrgDomainDto> {
    return this.domains.add(caller.userId, orgId, dto.domain);
  }

  @Get()
  @ApiOperation({ summary: "List the organization's domains", description: 'The primary domain first.' })
  @ApiOkResponse({ type: OrgDomainListDto })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async list(@Param('orgId') orgId: string, @Query() query: ListSearchQueryDto): Promise<OrgDomainListDto> {
    const { items, total } = searchedList(await this.domains.list(orgId), query, (d) => [d.domain]);
    return { domains: items, total };
  }

  @Post(':domain/verify')
  @HttpCode(200)
  @ApiOperation({ summary: 'Verify a domain', description: "Looks for its challenge; an IAM_OWNER's call marks it verified without one." })
  @ApiOkResponse({ type: OrgDomainVerifiedDto })
  @ApiConflictResponse({ description: 'the challenge was found neither in DNS nor at the HTTPS file' })
  @ApiNotFoundResponse({ description: 'no such domain of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  verify(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('domain') domain: string): Promise<OrgDomainVerifiedDto> {
    return this.domains.verify({ userId: caller.userId, vouches: caller.instanceRoles.has(Role.IamOwner) }, orgId, domain);
  }

  @Delete(':domain')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a domain', description: 'Not the primary domain, nor one an identity provider of the organization claims (409).' })
  @ApiNoContentResponse({ description: 'the domain is removed' })
  @ApiConflictResponse({ description: 'the primary domain, or claimed by an identity provider' })
  @ApiNotFoundResponse({ description: 'no such domain of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('domain') domain: string): Promise<void> {
    return this.domains.remove(caller.userId, orgId, domain);
  }
}
