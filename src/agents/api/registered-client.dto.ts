import { ApiProperty } from '@nestjs/swagger';
import type { DynamicClientSummary } from '../registration/dynamic-clients.queries.js';

/**
 * A client that registered itself (RFC 7591; docs/agents.md, "Dynamic registration"), to an organization or openly and
 * not bound yet.
 */
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

export class RemovedRegisteredClientsDto {
  @ApiProperty({ description: 'how many registrations were removed' }) removed: number;
}

export function registeredClientDto(client: DynamicClientSummary): RegisteredClientDto {
  const { client_name: name, redirect_uris: redirects } = client.metadata;
  return {
    clientId: client.clientId,
    clientName: typeof name === 'string' ? name : '',
    redirectUris: Array.isArray(redirects) ? redirects.filter((uri): uri is string => typeof uri === 'string') : [],
    createdAt: new Date(client.createdAt).toISOString(),
    lastUsedAt: new Date(client.lastUsedAt).toISOString(),
  };
}

/** What `?query=` matches of a registered client: its id, and its metadata's client name, URI and software id. */
export function registeredClientTexts(client: DynamicClientSummary): (string | undefined)[] {
  const text = (field: string) => (typeof client.metadata[field] === 'string' ? (client.metadata[field] as string) : undefined);
  return [client.clientId, text('client_name'), text('client_uri'), text('software_id')];
}
