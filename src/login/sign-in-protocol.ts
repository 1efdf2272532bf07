import type { Request, Response } from 'express';
import type { BoundaryClient } from './organization-boundary.js';

/** A sign-in the protocol asked for (oidc-provider's Interaction model), as the login UI reads it. */
export interface Interaction {
  uid: string;
  prompt: { name: string; reasons: string[] };
  params: Record<string, string | undefined>;
  session?: { accountId?: string; amr?: string[]; acr?: string };
  returnTo: string;
  grantId?: string;
  /** Set on the sign-in of a device flow (RFC 8628): the device code the user is approving. */
  deviceCode?: string;
  result?: Record<string, unknown>;
  /** Saves the interaction for the rest of its lifetime. */
  persist(): Promise<unknown>;
}

/** What a finished sign-in hands the protocol: who signed in, when, and how (RFC 8176 `amr`, and `acr`). */
export interface LoginResult {
  accountId: string;
  ts: number;
  amr: string[];
  acr: string;
}

/**
 * What the sign-in needs of the protocol that asked for it (who, which client, finish, refuse); src/oidc provides it
 * for oidc-provider. The consent step has a port of its own (consent-protocol.ts). The login UI
 * sits below the protocols (docs/architecture.md, "The parts"): it reaches them only through this.
 */
export interface SignInProtocol {
  /** The interaction of this browser (found by its cookie), whatever uid the path names. */
  interaction(req: Request, res: Response): Promise<Interaction>;
  /** The client the interaction signs in for. */
  clientOf(interaction: Interaction): Promise<BoundaryClient | undefined>;
  /**
   * Stores the finished sign-in on the interaction (`login` undefined: the session's sign-in carries over); the
   * browser then goes back to `returnTo`. What the client is then granted is the protocol's consent rule to decide,
   * not the sign-in: a person's own consent is the consent step's (consent-protocol.ts).
   */
  complete(interaction: Interaction, login: LoginResult | undefined): Promise<void>;
  /** Stores access_denied on the interaction (OIDC Core §3.1.2.6); the browser then goes back to `returnTo`. */
  deny(interaction: Interaction, description: string): Promise<void>;
}

export const SIGN_IN_PROTOCOL = Symbol('SIGN_IN_PROTOCOL');
