import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type {
  AuthProvider,
  FetchLike,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

/** One request the SDK made and what it was answered: the record a report quotes when a leg fails. */
export interface Exchange {
  method: string;
  url: string;
  body?: string;
  status: number;
  answer: string;
}

/**
 * The SDK's OAuthClientProvider as an MCP host implements it, in memory: a `clientMetadataUrl` (a Client ID Metadata
 * Document), or a pre-registered `client_id`, or neither (the SDK then registers dynamically, RFC 7591). The
 * authorization URL the SDK would open in a browser is kept for the test's Chromium to open.
 */
export class AgentProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  readonly clientMetadataUrl?: string;
  private information?: StoredOAuthClientInformation;
  private stored?: StoredOAuthTokens;
  private verifier = '';
  private discovery?: OAuthDiscoveryState;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadata: OAuthClientMetadata,
    options: { clientId?: string; clientMetadataUrl?: string; issuer?: string } = {},
  ) {
    this.clientMetadataUrl = options.clientMetadataUrl;
    // A pre-registered client id is bound to the authorization server that issued it (the SDK's SEP-2352 stamp).
    if (options.clientId) this.information = { client_id: options.clientId, issuer: options.issuer };
  }

  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: StoredOAuthClientInformation) {
    this.information = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.stored = undefined;
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
}

/** A fetch that records every exchange, so that a failing leg can say what the SDK sent and what it was answered. */
export function recordingFetch(log: Exchange[]): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init);
    const body = init?.body === undefined || init.body === null ? undefined : String(init.body);
    const answer = await response.clone().text();
    log.push({ method: init?.method ?? 'GET', url: String(input), body, status: response.status, answer: answer.slice(0, 600) });
    return response;
  };
}

/** The exchanges as lines, for an assertion message. */
export function transcript(log: Exchange[]): string {
  return log.map((e) => `${e.method} ${e.url}${e.body ? ` ${e.body}` : ''} → ${e.status} ${e.answer}`).join('\n');
}

/**
 * Connects the SDK's client to the MCP server as a host does: the first connection is refused (401) and leaves an
 * authorization URL; `authorize` (a browser) brings back the callback's parameters; `finishAuth` redeems the code;
 * the second connection carries the token.
 */
export async function connectAgent(
  serverUrl: string,
  provider: AgentProvider,
  authorize: (authorizationUrl: URL) => Promise<URLSearchParams>,
  log: Exchange[],
): Promise<Client> {
  const transport = () => new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, fetch: recordingFetch(log) });
  const first = transport();
  try {
    await new Client({ name: 'portcullis-test-agent', version: '1.0.0' }).connect(first);
    throw new Error('connected without authorization');
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  if (!provider.authorizationUrl) throw new Error(`the SDK opened no authorization URL:\n${transcript(log)}`);
  await first.finishAuth(await authorize(provider.authorizationUrl));
  return connectAuthorized(serverUrl, provider, log);
}

/** A connection with the tokens the provider holds (the SDK refreshes them itself when the server says 401). */
export async function connectAuthorized(serverUrl: string, provider: OAuthClientProvider | AuthProvider, log: Exchange[]): Promise<Client> {
  const client = new Client({ name: 'portcullis-test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider, fetch: recordingFetch(log) }));
  return client;
}

/** Calls the test server's `whoami` tool; returns its text. */
export async function whoami(client: Client): Promise<string> {
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  const content = (result.content ?? []) as { type: string; text?: string }[];
  return content.map((c) => c.text ?? '').join('');
}
