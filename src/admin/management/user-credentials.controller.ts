import { Controller, Delete, Get, HttpCode, Param, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { CredentialsService } from '../../users/credentials.service.js';
import { UserDirectory } from '../../users/user-directory.service.js';
import { ListPageQueryDto, pageOf } from '../../common/http/validation/list-page.dto.js';
import { UserKeyListDto, UserPatListDto } from '../dto/user-reads.dto.js';
import { keyView, patView } from './user-views.js';

/**
 * What credentials a machine user holds, and their removal. Lists show when each was made and expires,
 * never secret material; a removal goes through the acting rule, as issuing one does.
 */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/users/:userId')
export class UserCredentialsController {
  constructor(
    private readonly credentials: CredentialsService,
    private readonly directory: UserDirectory,
  ) {}

  @Delete('secret')
  @HttpCode(204)
  @ApiOperation({ summary: "Remove a machine user's client secret" })
  @ApiNoContentResponse({ description: 'the secret is removed; the client credentials grant refuses it' })
  @ApiNotFoundResponse({ description: 'no such user in the organization, or it has no secret' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async removeSecret(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string): Promise<void> {
    await this.credentials.removeMachineSecret(caller.userId, orgId, userId);
  }

  @Get('keys')
  @ApiOperation({ summary: "List a machine user's keys (no key material)" })
  @ApiOkResponse({ type: UserKeyListDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async listKeys(@Param('orgId') orgId: string, @Param('userId') userId: string, @Query() query: ListPageQueryDto): Promise<UserKeyListDto> {
    const { items, total } = await this.directory.keys(orgId, userId, pageOf(query));
    return { keys: items.map(keyView), total };
  }

  @Delete('keys/:keyId')
  @HttpCode(204)
  @ApiOperation({ summary: "Remove a machine user's key" })
  @ApiNoContentResponse({ description: 'the key is removed; JWT profile assertions signed with it are refused' })
  @ApiNotFoundResponse({ description: 'no such user in the organization, or no such key of the user' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async removeKey(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('userId') userId: string, @Param('keyId') keyId: string): Promise<void> {
    await this.credentials.removeMachineKey(caller.userId, orgId, userId, keyId);
  }

  @Get('pats')
  @ApiOperation({ summary: "List a machine user's personal access tokens (no token values)" })
  @ApiOkResponse({ type: UserPatListDto })
  @ApiNotFoundResponse({ description: 'no such user in the organization' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async listPats(@Param('orgId') orgId: string, @Param('userId') userId: string, @Query() query: ListPageQueryDto): Promise<UserPatListDto> {
    const { items, total } = await this.directory.personalAccessTokens(orgId, userId, pageOf(query));
    return { pats: items.map(patView), total };
  }

  @Delete('pats/:tokenId')
  @HttpCode(204)
  @ApiOperation({ summary: "Remove a machine user's personal access token" })
  @ApiNoContentResponse({ description: 'the token is removed; the API answers 401 to it' })
  @ApiNotFoundResponse({ description: 'no such user in the organization, or no such token of the user' })
  @Authenticated({ role: Role.OrgUserManager, orgParam: 'orgId' })
  async removePat(
    @Caller() caller: Principal,
    @Param('orgId') orgId: string,
    @Param('userId') userId: string,
    @Param('tokenId') tokenId: string,
  ): Promise<void> {
    await this.credentials.removePersonalAccessToken(caller.userId, orgId, userId, tokenId);
  }
}
