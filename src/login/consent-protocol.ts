import type { BoundaryClient } from './organization-boundary.js';
import type { Interaction } from './sign-in-protocol.js';

/** What an agent client asks a person to allow (docs/agents.md, "Consent and connected agents"). */
export interface ConsentRequest {
  clientName: string;
  /** The host of a metadata document's client_id (CIMD); undefined: a dynamic registration, which nobody verified. */
  clientHost?: string;
  redirectHost: string;
  /** The redirect goes to this computer (a loopback address, RFC 8252 §7.3): an app on it gets the answer. */
  loopback: boolean;
  /** A device flow (RFC 8628): no redirect; the device that showed the user code gets the answer by polling. */
  device?: boolean;
  resourceName?: string;
  scopes: { name: string; description?: string }[];
  /** The resource admits only people granted its project (docs/product-rules.md, "Application access"). */
  refused: boolean;
}

/**
 * What became of an allowed consent: remembered; nothing to allow (the client asks no one's consent, or the person
 * allowed it all before); or refused, since the resource admits only people granted its project.
 */
export type ConsentAnswer = 'allowed' | 'not-asked' | 'refused';

/**
 * What the consent step needs (docs/agents.md, "Consent and connected agents"); src/agents provides it, src/oidc wires
 * it. The client is the one the sign-in protocol found for this request (SignInProtocol.clientOf), handed on rather
 * than looked up again.
 */
export interface ConsentProtocol {
  /** The consent the client asks of the signed-in person, for the page; undefined when it asks none. */
  asked(interaction: Interaction, client: BoundaryClient | undefined): Promise<ConsentRequest | undefined>;
  /** Remembers the person's consent to what the interaction asks, checked again as the page was; the sign-in then completes. */
  allow(interaction: Interaction, client: BoundaryClient | undefined): Promise<ConsentAnswer>;
}

export const CONSENT_PROTOCOL = Symbol('CONSENT_PROTOCOL');
