import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';

/** SSF 1.0 §8.1.1: how a stream's SETs travel. */
export class StreamDeliveryDto {
  @ApiPropertyOptional({ description: 'urn:ietf:rfc:8935 (push) or urn:ietf:rfc:8936 (poll, the default)' })
  @IsOptional()
  @IsString()
  @Bounded(100)
  method?: string;

  @ApiPropertyOptional({ description: "push: the receiver's endpoint (the outbound address rules apply); poll: set by the transmitter" })
  @IsOptional()
  @IsString()
  @Bounded(2000)
  endpoint_url?: string;

  @ApiPropertyOptional({ description: 'push: the Authorization header sent with every SET; stored encrypted, never shown' })
  @IsOptional()
  @IsString()
  @Bounded(1000)
  authorization_header?: string;
}

/** SSF 1.0 §8.1.1.1 (create) and §8.1.1.3/4 (update, replace): the members a receiver sets. */
export class StreamInputDto {
  @ApiPropertyOptional({ description: 'Required on PATCH and PUT' })
  @IsOptional()
  @IsString()
  @Bounded(64)
  stream_id?: string;

  @ApiPropertyOptional({ type: StreamDeliveryDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => StreamDeliveryDto)
  delivery?: StreamDeliveryDto;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Bounded(200, { each: true })
  events_requested?: string[];

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @Bounded(200)
  description?: string;

  /** Read-only members a receiver may echo back on PUT (SSF 1.0 §8.1.1.4); ignored. */
  @ApiPropertyOptional() @IsOptional() @IsString() @Bounded(2000) iss?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Bounded(255) aud?: string;
  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Bounded(200, { each: true })
  events_supported?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @Bounded(200, { each: true })
  events_delivered?: string[];
}

export class StreamDeliveryViewDto {
  @ApiProperty() method: string;
  @ApiProperty() endpoint_url: string;
}

export class StreamConfigurationDto {
  @ApiProperty() stream_id: string;
  @ApiProperty() iss: string;
  @ApiProperty() aud: string;
  @ApiProperty({ type: [String] }) events_supported: string[];
  @ApiProperty({ type: [String] }) events_requested: string[];
  @ApiProperty({ type: [String] }) events_delivered: string[];
  @ApiProperty({ type: StreamDeliveryViewDto }) delivery: StreamDeliveryViewDto;
  @ApiPropertyOptional() description?: string;
}

export class StreamStatusInputDto {
  @ApiProperty() @IsString() @Bounded(64) stream_id: string;
  @ApiProperty({ enum: ['enabled', 'paused', 'disabled'] }) @IsIn(['enabled', 'paused', 'disabled']) status: 'enabled' | 'paused' | 'disabled';
  @ApiPropertyOptional() @IsOptional() @IsString() @Bounded(200) reason?: string;
}

export class StreamStatusDto {
  @ApiProperty() stream_id: string;
  @ApiProperty({ enum: ['enabled', 'paused', 'disabled'] }) status: string;
  @ApiPropertyOptional() reason?: string;
}

export class VerificationInputDto {
  @ApiProperty() @IsString() @Bounded(64) stream_id: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @Bounded(200) state?: string;
}

/** SSF 1.0 §8.1.3.2 and §8.1.3.3: a subject added to or removed from a stream. */
export class SubjectInputDto {
  @ApiProperty() @IsString() @Bounded(64) stream_id: string;
  @ApiProperty({ description: 'RFC 9493 subject identifier: {format: "iss_sub", iss, sub} of this issuer, or {format: "email", email}' })
  @IsObject()
  subject: Record<string, unknown>;
  @ApiPropertyOptional({ description: 'SSF 1.0 §8.1.3.2: whether the receiver verified the subject; recorded nowhere' })
  @IsOptional()
  @IsBoolean()
  verified?: boolean;
}

/** RFC 8936 §2.4: acknowledgements and how many SETs to return. */
export class PollInputDto {
  @ApiPropertyOptional({ type: [String] }) @IsOptional() @IsArray() @ArrayMaxSize(100) @IsString({ each: true }) @Bounded(64, { each: true }) ack?: string[];
  @ApiPropertyOptional() @IsOptional() @IsInt() @Min(0) @Max(100) maxEvents?: number;
  @ApiPropertyOptional() @IsOptional() returnImmediately?: boolean;
  /** RFC 8936 §2.4.2: errors about SETs received; recorded nowhere yet. */
  @ApiPropertyOptional() @IsOptional() @IsObject() setErrs?: Record<string, unknown>;
}

export class PollAnswerDto {
  @ApiProperty({ description: 'jti → SET', type: 'object', additionalProperties: { type: 'string' } }) sets: Record<string, string>;
  @ApiProperty() moreAvailable: boolean;
}

export class AuthorizationSchemeDto {
  @ApiProperty() spec_urn: string;
}

/** SSF 1.0 §7.1: the transmitter configuration metadata. */
export class TransmitterConfigurationDto {
  @ApiProperty() spec_version: string;
  @ApiProperty() issuer: string;
  @ApiProperty() jwks_uri: string;
  @ApiProperty({ type: [String] }) delivery_methods_supported: string[];
  @ApiProperty() configuration_endpoint: string;
  @ApiProperty() status_endpoint: string;
  @ApiProperty() verification_endpoint: string;
  @ApiProperty() add_subject_endpoint: string;
  @ApiProperty() remove_subject_endpoint: string;
  @ApiProperty({ enum: ['ALL', 'NONE'], description: 'SSF 1.0 §7.1: a new stream carries every subject its application admits' }) default_subjects: string;
  @ApiProperty({ type: [AuthorizationSchemeDto] }) authorization_schemes: AuthorizationSchemeDto[];
}

/** An upstream IdP's Shared Signals as this instance's organization sees them: subscribed or not. */
export class SignalsSubscriptionDto {
  @ApiProperty() idpId: string;
  @ApiProperty({ description: "Whether this instance receives the identity provider's SETs" }) subscribed: boolean;
  @ApiPropertyOptional({ description: "The transmitter's issuer" }) issuer?: string;
  @ApiPropertyOptional({ description: 'The stream at the transmitter' }) streamId?: string;
  @ApiPropertyOptional({ description: 'Where the transmitter pushes' }) receiveUrl?: string;
  @ApiPropertyOptional() createdAt?: string;
}
