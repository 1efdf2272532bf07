/**
 * What a client is, read in one place from its registration metadata (src/oidc/adapter/client.store.ts builds it from
 * the client's own row: an application, a machine user, the account page; src/agents marks the clients that
 * registered themselves). The organization boundary, the Portcullis API audience and the agents' consent and
 * resource rules ask this, never whether some row is missing (SECURITY.md, "an application gets no more than its owner").
 */

/** The metadata member that marks a client that registered itself (docs/agents.md). */
export const AGENT_CLIENT_MARKER = 'portcullis_agent';
/** The marker's value for a client known by its metadata document (docs/agents.md, "Client ID Metadata Documents"). */
export const CIMD_AGENT = 'cimd';
/** The marker's value for a client registered by RFC 7591 (docs/agents.md, "Dynamic registration"). */
export const DCR_AGENT = 'dcr';

export type ClientKind =
  /** An application with API access, or the account page: registered by the instance's owners, serves every organization. */
  | 'first-party'
  /** An OIDC, API or SAML application of one organization. */
  | 'application'
  /** A machine user: its tokens are its own. */
  | 'machine'
  /** A client known by its metadata document. */
  | 'metadata-document'
  /** A client registered by RFC 7591. */
  | 'registered'
  /** No client, or metadata of no kind above: allowed nothing a kind would allow. */
  | 'unknown';

/** The metadata the kind is read from. */
export interface KindedClient {
  portcullis_kind?: string;
  portcullis_api_access?: boolean;
  [AGENT_CLIENT_MARKER]?: string;
}

const APPLICATION_KINDS = new Set(['oidc', 'api', 'saml']);

/** The client's kind. A client's own mark wins: one that registered itself is never first-party or a machine user, whatever else its metadata says. */
export function clientKindOf(client: KindedClient | undefined): ClientKind {
  if (!client) return 'unknown';
  const marker = client[AGENT_CLIENT_MARKER];
  if (marker === CIMD_AGENT) return 'metadata-document';
  if (marker === DCR_AGENT) return 'registered';
  if (marker !== undefined) return 'unknown';
  if (client.portcullis_kind === 'machine') return 'machine';
  if (client.portcullis_api_access === true) return 'first-party';
  return APPLICATION_KINDS.has(client.portcullis_kind ?? '') ? 'application' : 'unknown';
}

/** A client that registered itself (by its metadata document or RFC 7591): it names the resource of every token it asks for. */
export function isSelfRegisteredKind(kind: ClientKind): boolean {
  return kind === 'metadata-document' || kind === 'registered';
}

/** Whether the client may hold the Portcullis API audience: a machine user (its own tokens) and a first-party application. */
export function mayHoldApiAudience(kind: ClientKind): boolean {
  return kind === 'machine' || kind === 'first-party';
}

/**
 * Sign-in stays inside the organization (SECURITY.md): an application serves only users of its own
 * organization, except the instance's first-party applications (`apiAccess`, e.g. the console), which
 * serve users of every organization. A machine user's tokens are its own. No client (one removed while its
 * sign-in went on) serves no one.
 */
export function mayServe(client: (KindedClient & { portcullis_org_id?: string }) | undefined, account: { orgId: string }): boolean {
  if (!client) return false;
  if (mayHoldApiAudience(clientKindOf(client))) return true;
  return !!client.portcullis_org_id && client.portcullis_org_id === account.orgId;
}
