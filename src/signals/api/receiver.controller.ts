import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Put, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated, Public } from '../../common/auth/authenticated.decorator.js';
import { Caller } from '../../common/auth/caller.decorator.js';
import type { Principal } from '../../common/auth/principal.js';
import { Role } from '../../common/auth/roles.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { RefusedSet } from '../receiver/set-verifier.js';
import { SsfReceiverService } from '../receiver/ssf-receiver.service.js';
import type { SubscriptionRow } from '../receiver/subscription.queries.js';
import { SignalsSubscriptionDto } from './ssf.dto.js';

/** An organization's upstream IdP as a Shared Signals transmitter (docs/signals.md, "Receiving"). */
@ApiTags('management')
@Controller('management/v1/orgs/:orgId/idps/:idpId/signals')
export class IdpSignalsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly receiver: SsfReceiverService,
  ) {}

  @Put()
  @HttpCode(201)
  @ApiOperation({ summary: "Subscribe to the upstream IdP's Shared Signals: it pushes session-revoked, account-disabled and credential-change" })
  @ApiCreatedResponse({ type: SignalsSubscriptionDto })
  @ApiNotFoundResponse({ description: 'no such identity provider of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async subscribe(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('idpId') idpId: string): Promise<SignalsSubscriptionDto> {
    return this.view(await this.receiver.subscribe(caller.userId, orgId, idpId));
  }

  @Get()
  @ApiOperation({ summary: "Whether the organization receives the upstream IdP's Shared Signals, and from which stream" })
  @ApiOkResponse({ type: SignalsSubscriptionDto })
  @ApiNotFoundResponse({ description: 'no such identity provider of the organization' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async read(@Param('orgId') orgId: string, @Param('idpId') idpId: string): Promise<SignalsSubscriptionDto> {
    const found = await this.receiver.subscriptionOfIdp(orgId, idpId);
    return found ? this.view(found) : { idpId, subscribed: false };
  }

  @Delete()
  @HttpCode(204)
  @ApiOperation({ summary: 'End the subscription (its stream at the upstream is deleted when reachable)' })
  @ApiNoContentResponse({ description: 'the subscription is gone' })
  @ApiNotFoundResponse({ description: 'the identity provider is not subscribed to' })
  @Authenticated({ role: Role.OrgOwner, orgParam: 'orgId' })
  async remove(@Caller() caller: Principal, @Param('orgId') orgId: string, @Param('idpId') idpId: string): Promise<void> {
    await this.receiver.unsubscribe(caller.userId, orgId, idpId);
  }

  private view(row: SubscriptionRow): SignalsSubscriptionDto {
    return {
      idpId: row.idpId,
      subscribed: true,
      issuer: row.issuer,
      streamId: row.streamId,
      receiveUrl: `${this.config.publicUrl}/ssf/v1/receive/${row.idpId}`,
      createdAt: new Date(row.createdAt).toISOString(),
    };
  }
}

/**
 * RFC 8935 §2: where an upstream pushes SETs. Public to the access guard: the transmitter proves itself by the bearer
 * token given at subscription and by the SET's signature. 202 for an accepted SET; 400 with `err` (§2.3) otherwise.
 */
@ApiTags('signals')
@Controller('ssf/v1/receive')
export class ReceiveController {
  constructor(private readonly receiver: SsfReceiverService) {}

  @Post(':idpId')
  @Public()
  @ApiOperation({ summary: 'Receive a pushed SET (RFC 8935)' })
  @ApiAcceptedResponse({ description: 'the SET is accepted' })
  @ApiBadRequestResponse({ description: 'the SET is refused: `{err, description}` (RFC 8935 §2.3)' })
  async receive(@Param('idpId') idpId: string, @Headers('authorization') authorization: string | undefined, @Body() body: unknown, @Res() res: Response) {
    try {
      await this.receiver.receive(idpId, authorization, body);
      res.status(202).end();
    } catch (error) {
      if (!(error instanceof RefusedSet)) throw error;
      const status = error.err === 'authentication_failed' ? 401 : 400;
      res.status(status).json({ err: error.err, description: error.reason });
    }
  }
}
