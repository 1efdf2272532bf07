import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Put, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBasicAuth,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import { ApiErrorDto } from '../../common/http/openapi/api-error.dto.js';
import { Public } from '../../common/auth/authenticated.decorator.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { ReceiverAuth } from '../transmitter/receiver-auth.js';
import { SsfStreamsService } from '../transmitter/ssf-streams.service.js';
import { StreamConfigurationDto, StreamInputDto, StreamStatusDto, StreamStatusInputDto, SubjectInputDto, VerificationInputDto } from './ssf.dto.js';
import { StreamSubjectsService } from '../transmitter/stream-subjects.service.js';

/**
 * SSF 1.0 §8.1 stream management. The routes are public to the access guard, which knows users: a receiver is an
 * application, authenticated here by its client id and secret (ReceiverAuth), and sees only its own streams.
 */
@ApiTags('signals')
@ApiBearerAuth()
@ApiBasicAuth()
@ApiUnauthorizedResponse({
  description: 'no receiver: a token of scope ssf.manage (client_credentials) of a receiver application, or its client id and secret in HTTP Basic',
  type: ApiErrorDto,
})
@ApiBadRequestResponse({ description: 'a member the transmitter does not take (unknown event type, delivery method, endpoint)', type: ApiErrorDto })
@ApiNotFoundResponse({ description: 'no such stream of the receiver', type: ApiErrorDto })
@Controller('ssf/v1/streams')
export class TransmitterStreamsController {
  constructor(
    private readonly auth: ReceiverAuth,
    private readonly streams: SsfStreamsService,
    private readonly subjects: StreamSubjectsService,
  ) {}

  @Post()
  @HttpCode(201)
  @Public()
  @ApiOperation({ summary: 'Create a stream (SSF 1.0 §8.1.1.1)' })
  @ApiCreatedResponse({ type: StreamConfigurationDto })
  async create(@Headers('authorization') authorization: string | undefined, @Body() dto: StreamInputDto): Promise<StreamConfigurationDto> {
    return this.streams.create(await this.auth.receiverOf(authorization), dto);
  }

  @Get()
  @Public()
  @ApiOperation({ summary: "Read a stream, or all the receiver's streams (SSF 1.0 §8.1.1.2)" })
  @ApiOkResponse({ type: StreamConfigurationDto })
  async read(
    @Headers('authorization') authorization: string | undefined,
    @Query('stream_id') streamId: string | undefined,
  ): Promise<StreamConfigurationDto | StreamConfigurationDto[]> {
    const receiver = await this.auth.receiverOf(authorization);
    return streamId === undefined ? this.streams.list(receiver) : this.streams.read(receiver, String(streamId));
  }

  @Patch()
  @Public()
  @ApiOperation({ summary: 'Update a stream (SSF 1.0 §8.1.1.3)' })
  @ApiOkResponse({ type: StreamConfigurationDto })
  async update(@Headers('authorization') authorization: string | undefined, @Body() dto: StreamInputDto): Promise<StreamConfigurationDto> {
    return this.streams.update(await this.auth.receiverOf(authorization), streamIdOf(dto.stream_id), dto, false);
  }

  @Put()
  @Public()
  @ApiOperation({ summary: 'Replace a stream (SSF 1.0 §8.1.1.4)' })
  @ApiOkResponse({ type: StreamConfigurationDto })
  async replace(@Headers('authorization') authorization: string | undefined, @Body() dto: StreamInputDto): Promise<StreamConfigurationDto> {
    return this.streams.update(await this.auth.receiverOf(authorization), streamIdOf(dto.stream_id), dto, true);
  }

  @Delete()
  @HttpCode(204)
  @Public()
  @ApiOperation({ summary: 'Delete a stream (SSF 1.0 §8.1.1.5); what it still owed is dropped' })
  @ApiNoContentResponse({ description: 'the stream is gone' })
  async remove(@Headers('authorization') authorization: string | undefined, @Query('stream_id') streamId: string | undefined): Promise<void> {
    await this.streams.remove(await this.auth.receiverOf(authorization), streamIdOf(streamId));
  }

  @Get('status')
  @Public()
  @ApiOperation({ summary: "Read a stream's status (SSF 1.0 §8.1.2.1)" })
  @ApiOkResponse({ type: StreamStatusDto })
  async status(@Headers('authorization') authorization: string | undefined, @Query('stream_id') streamId: string | undefined): Promise<StreamStatusDto> {
    return this.streams.status(await this.auth.receiverOf(authorization), streamIdOf(streamId));
  }

  @Post('status')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: "Set a stream's status (SSF 1.0 §8.1.2.2): a paused stream holds its events until enabled" })
  @ApiOkResponse({ type: StreamStatusDto })
  async setStatus(@Headers('authorization') authorization: string | undefined, @Body() dto: StreamStatusInputDto): Promise<StreamStatusDto> {
    return this.streams.setStatus(await this.auth.receiverOf(authorization), dto.stream_id, dto.status, dto.reason);
  }

  @Post('subjects/add')
  @HttpCode(200)
  @Public()
  @ApiOperation({ summary: 'Add a subject to a stream (SSF 1.0 §8.1.3.2): from then on the stream carries only its subjects' })
  @ApiOkResponse({ description: 'the subject is the stream’s' })
  async addSubject(@Headers('authorization') authorization: string | undefined, @Body() dto: SubjectInputDto): Promise<void> {
    await this.subjects.add(await this.auth.receiverOf(authorization), dto.stream_id, dto.subject);
  }

  @Post('subjects/remove')
  @HttpCode(204)
  @Public()
  @ApiOperation({ summary: 'Remove a subject from a stream (SSF 1.0 §8.1.3.3)' })
  @ApiNoContentResponse({ description: 'the subject is the stream’s no more' })
  async removeSubject(@Headers('authorization') authorization: string | undefined, @Body() dto: SubjectInputDto): Promise<void> {
    await this.subjects.remove(await this.auth.receiverOf(authorization), dto.stream_id, dto.subject);
  }

  @Post('verify')
  @HttpCode(204)
  @Public()
  @ApiOperation({ summary: 'Ask for a verification event (SSF 1.0 §8.1.4.2)' })
  @ApiNoContentResponse({ description: 'the verification event is queued behind what the stream owes' })
  async verify(@Headers('authorization') authorization: string | undefined, @Body() dto: VerificationInputDto): Promise<void> {
    await this.streams.verify(await this.auth.receiverOf(authorization), dto.stream_id, dto.state);
  }
}

function streamIdOf(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) throw DomainError.invalidField('stream_id', 'stream_id is required');
  return value;
}
