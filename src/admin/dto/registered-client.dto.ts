import { ApiProperty } from '@nestjs/swagger';

/** A client that registered itself to the organization (RFC 7591; docs/agents.md, "Dynamic registration"). */
export class RegisteredClientDto {
  @ApiProperty({ description: 'its client_id (starts with `agent-`)' }) clientId: string;
  @ApiProperty({ description: 'the client_name it registered (RFC 7591 §2), as the client said; empty without one' }) clientName: string;
  @ApiProperty({ type: [String], description: 'its registered redirect URIs' }) redirectUris: string[];
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time', description: 'its last use, noted at most hourly; 30 days after it the registration lapses' })
  lastUsedAt: string;
}

export class RegisteredClientListDto {
  @ApiProperty({ type: [RegisteredClientDto] }) clients: RegisteredClientDto[];
  @ApiProperty() total: number;
}
