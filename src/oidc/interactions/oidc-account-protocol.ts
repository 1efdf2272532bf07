import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { AccountProtocol, ConnectedAgent, StoredSession } from '../../account/account-protocol.js';
import { EventStore } from '../../common/events/event-store.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { connectedAgentsOf } from '../../agents/consent/connected-agents.js';
import { endConsents } from '../../agents/consent/agent-consents.js';
import { endClientTokens } from '../adapter/user-payloads.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { ACCOUNT_SIGNED_IN_PATH } from '../../login/ui-paths.js';
import { ACCOUNT_CLIENT_ID } from '../provider/account-client.js';
import { OIDC_ROUTES } from '../provider/oidc.routes.js';
import { ProviderHolder } from '../provider/provider.holder.js';

/**
 * The account page in oidc-provider's session: Session.get reads the signed cookie outside the provider's routes, and
 * a sign-in starts with the account page's static client (account-client.ts) when there is none.
 */
@Injectable()
export class OidcAccountProtocol implements AccountProtocol {
  constructor(
    private readonly holder: ProviderHolder,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  async session(req: Request, res: Response): Promise<StoredSession> {
    const { provider } = this.holder;
    return (await provider.Session.get(provider.createContext(req, res))) as StoredSession;
  }

  /**
   * The authorization request of the account page's sign-in (code flow with PKCE, as the client must). The code is
   * never redeemed, so the verifier is not kept.
   */
  signInUrl(again: boolean, locale: string, upstream?: { idpHint: string; state: string }, state?: string): string {
    const challenge = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const params = new URLSearchParams({
      client_id: ACCOUNT_CLIENT_ID,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: `${this.config.publicUrl}${ACCOUNT_SIGNED_IN_PATH}`,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: upstream?.state ?? state ?? randomBytes(16).toString('base64url'),
      ui_locales: locale,
      ...(again ? { prompt: 'login' } : {}),
      ...(upstream ? { idp_hint: upstream.idpHint } : {}),
    });
    return `${OIDC_ROUTES.authorization}?${params}`;
  }

  signOutUrl(): string {
    return `${OIDC_ROUTES.end_session}?${new URLSearchParams({ client_id: ACCOUNT_CLIENT_ID })}`;
  }

  async applicationName(clientId: string): Promise<string | undefined> {
    if (clientId === ACCOUNT_CLIENT_ID) return undefined;
    return (await this.holder.provider.Client.find(clientId))?.clientName ?? clientId;
  }

  connectedAgents(userId: string): Promise<ConnectedAgent[]> {
    return connectedAgentsOf(this.uow.manager, userId);
  }

  revokeAgent(user: { id: string; orgId: string }, clientId: string): Promise<boolean> {
    return this.uow.run((manager) => endConsents(manager, this.events, { orgId: user.orgId, userId: user.id, clientId }, user.id, endClientTokens));
  }
}
