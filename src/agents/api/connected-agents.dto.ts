import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** A person's consent to an agent client at one resource (docs/agents.md, "Consent and connected agents"). */
export class ConnectedAgentDto {
  @ApiProperty({ description: 'the client_id (a Client ID Metadata Document URL, or a registered id)' }) clientId: string;
  @ApiProperty({ description: "the client's name when consent was given" }) clientName: string;
  @ApiProperty() userId: string;
  @ApiProperty({ description: "the resource indicator (RFC 8707); '' for none" }) resource: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ format: 'date-time' }) connectedAt: string;
  @ApiProperty({ format: 'date-time', description: 'when the person last allowed more scopes; connectedAt when never' }) changedAt: string;
}

export class ConnectedAgentListDto {
  @ApiProperty({ type: [ConnectedAgentDto] }) agents: ConnectedAgentDto[];
  @ApiProperty() total: number;
}

/** A person the organization's list of agents names, so a list shows a name beside the id. */
export class AgentPersonDto {
  @ApiProperty() userId: string;
  @ApiProperty({ description: '`<userName>@<organization primary domain>`', example: 'ada@acme.localhost' }) loginName: string;
  @ApiPropertyOptional({ example: 'Ada Lovelace' }) displayName?: string;
}

export class OrgConnectedAgentListDto extends ConnectedAgentListDto {
  @ApiProperty({ type: [AgentPersonDto], description: "the people of the page's agents, each once" }) users: AgentPersonDto[];
}
