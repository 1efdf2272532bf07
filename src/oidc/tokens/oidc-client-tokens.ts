import { Injectable } from '@nestjs/common';
import type { ClientTokens } from '../../common/auth/client-tokens.js';
import { ProviderHolder } from '../provider/provider.holder.js';

/** CLIENT_TOKENS: oidc-provider's client credentials tokens, looked up in the database so that revocation counts. */
@Injectable()
export class OidcClientTokens implements ClientTokens {
  constructor(private readonly holder: ProviderHolder) {}

  async heldBy(token: string): Promise<{ clientId: string; scopes: string[] } | null> {
    if (token.length > 4096) return null;
    const found = await this.holder.provider.ClientCredentials.find(token);
    if (!found?.isValid) return null;
    // A DPoP-bound token (RFC 9449 §7.2) is no Bearer token: without its proof, which this surface does not take, it admits nothing.
    if (found.jkt !== undefined || found['x5t#S256'] !== undefined) return null;
    return { clientId: found.clientId, scopes: (found.scope ?? '').split(' ').filter(Boolean) };
  }
}
