import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import {
  REGISTRATION_TOKEN_DEFAULT_SECONDS,
  REGISTRATION_TOKEN_DEFAULT_USES,
  REGISTRATION_TOKEN_MAX_SECONDS,
  REGISTRATION_TOKEN_MAX_USES,
  REGISTRATION_TOKEN_MIN_SECONDS,
} from '../registration/agent-registration-tokens.service.js';

/** An initial access token to be issued (RFC 7591 §3; docs/agents.md, "Dynamic registration"). */
export class IssueAgentRegistrationTokenDto {
  @ApiProperty({
    required: false,
    default: REGISTRATION_TOKEN_DEFAULT_SECONDS,
    minimum: REGISTRATION_TOKEN_MIN_SECONDS,
    maximum: REGISTRATION_TOKEN_MAX_SECONDS,
    description: 'seconds the token can register clients',
  })
  @IsOptional()
  @IsInt({ message: 'expiresIn must be a whole number of seconds' })
  @Min(REGISTRATION_TOKEN_MIN_SECONDS, { message: `expiresIn must be at least ${REGISTRATION_TOKEN_MIN_SECONDS}` })
  @Max(REGISTRATION_TOKEN_MAX_SECONDS, { message: `expiresIn must be at most ${REGISTRATION_TOKEN_MAX_SECONDS}` })
  expiresIn?: number;

  @ApiProperty({
    required: false,
    default: REGISTRATION_TOKEN_DEFAULT_USES,
    minimum: 1,
    maximum: REGISTRATION_TOKEN_MAX_USES,
    description: 'how many clients the token registers',
  })
  @IsOptional()
  @IsInt({ message: 'uses must be a whole number' })
  @Min(1, { message: 'uses must be at least 1' })
  @Max(REGISTRATION_TOKEN_MAX_USES, { message: `uses must be at most ${REGISTRATION_TOKEN_MAX_USES}` })
  uses?: number;
}

export class AgentRegistrationTokenDto {
  @ApiProperty({ description: 'the initial access token, shown once: the bearer token of a registration request (RFC 7591 §3)' })
  token: string;

  @ApiProperty({ description: 'when it stops registering clients (ISO 8601)' })
  expiresAt: string;

  @ApiProperty({ description: 'how many clients it registers' })
  uses: number;
}
