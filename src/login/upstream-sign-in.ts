import type { Request, Response } from 'express';
import type { Interaction } from './sign-in-protocol.js';
import type { LoginOptions } from './login.views.js';

/**
 * The login page's doors to an organization's upstream identity providers (docs/federation.md); src/federation
 * provides them, and its upstream sign-ins come back into SignInFlow. `discover` and `followHint` answer true when
 * they sent the browser upstream.
 */
export interface UpstreamSignIn {
  /** What the login page offers for this client: its IdPs, whether it takes passwords, where its forms may lead. */
  options(interaction: Interaction): Promise<LoginOptions>;
  /** Home-realm discovery: the typed login name's domain names an IdP this client may use. */
  discover(req: Request, res: Response, interaction: Interaction, loginName: string): Promise<boolean>;
  /** `idp_hint`: the request names an IdP this client may use. */
  followHint(req: Request, res: Response, interaction: Interaction): Promise<boolean>;
}

export const UPSTREAM_SIGN_IN = Symbol('UPSTREAM_SIGN_IN');
