import { Body, Controller, Get, Headers, HttpCode, Inject, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ApiErrorDto } from '../../common/http/openapi/api-error.dto.js';
import { Public } from '../../common/auth/authenticated.decorator.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { ReceiverAuth } from '../transmitter/receiver-auth.js';
import { POLL_METHOD, PUSH_METHOD, SsfStreamsService } from '../transmitter/ssf-streams.service.js';
import { PollAnswerDto, PollInputDto, TransmitterConfigurationDto } from './ssf.dto.js';

/** The transmitter's metadata (SSF 1.0 §7) and the poll endpoint of its poll streams (RFC 8936). */
@ApiTags('signals')
@Controller()
export class TransmitterConfigurationController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly auth: ReceiverAuth,
    private readonly streams: SsfStreamsService,
  ) {}

  @Get('.well-known/ssf-configuration')
  @Public()
  @ApiOperation({ summary: 'Shared Signals transmitter configuration (SSF 1.0 §7.1)' })
  @ApiOkResponse({ type: TransmitterConfigurationDto })
  configuration(): TransmitterConfigurationDto {
    const base = this.config.publicUrl;
    return {
      spec_version: '1_0',
      issuer: base,
      jwks_uri: `${base}/oauth/v2/keys`,
      delivery_methods_supported: [PUSH_METHOD, POLL_METHOD],
      configuration_endpoint: `${base}/ssf/v1/streams`,
      status_endpoint: `${base}/ssf/v1/streams/status`,
      verification_endpoint: `${base}/ssf/v1/streams/verify`,
      add_subject_endpoint: `${base}/ssf/v1/streams/subjects/add`,
      remove_subject_endpoint: `${base}/ssf/v1/streams/subjects/remove`,
      default_subjects: 'ALL',
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6749' }],
    };
  }

  @Post('ssf/v1/poll/:streamId')
  @HttpCode(200)
  @Public()
  @ApiBearerAuth()
  @ApiBasicAuth()
  @ApiOperation({ summary: 'Poll a stream (RFC 8936 §2.4): acknowledge SETs and receive the next ones' })
  @ApiOkResponse({ type: PollAnswerDto })
  @ApiUnauthorizedResponse({
    description: 'no receiver: a token of scope ssf.manage (client_credentials) of a receiver application, or its client id and secret in HTTP Basic',
    type: ApiErrorDto,
  })
  @ApiBadRequestResponse({ description: 'a push stream, or a bad request', type: ApiErrorDto })
  @ApiNotFoundResponse({ description: 'no such stream of the receiver', type: ApiErrorDto })
  async poll(
    @Headers('authorization') authorization: string | undefined,
    @Param('streamId') streamId: string,
    @Body() dto: PollInputDto,
  ): Promise<PollAnswerDto> {
    return this.streams.poll(await this.auth.receiverOf(authorization), streamId, dto);
  }
}
