import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { CLIENT_TOKENS, SSF_MANAGE_SCOPE } from '../../common/auth/client-tokens.js';
import type { ClientTokens } from '../../common/auth/client-tokens.js';
import { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { flag } from '../../common/database/column-values.js';
import { clientRows } from '../../users/queries/oidc-clients.js';
import type { ClientRow } from '../../users/queries/oidc-clients.js';

/** A receiver as the stream management endpoints know it: an application of an organization. */
export interface Receiver {
  clientId: string;
  orgId: string;
  /** The application's id: the aggregate of its streams' events. */
  appId: string;
}

/**
 * Who calls the stream management endpoints (SSF 1.0 §8.1): an API or OIDC application of this instance that its
 * organization made a receiver (`ssfReceiver`). It presents an access token of scope `ssf.manage` it got by client
 * credentials (RFC 6749 §4.4, RFC 6750 §2.1), the scheme `authorization_schemes` announces (`urn:ietf:rfc:6749`); or,
 * as receivers configured before tokens, its client id and secret in HTTP Basic as at the token endpoint (RFC 6749
 * §2.3.1). Either way the application is read again on every call, so clearing `ssfReceiver` ends its access at
 * once. Every stream it manages is its own: it sees and changes no other application's (docs/signals.md, "Receivers").
 */
@Injectable()
export class ReceiverAuth {
  constructor(
    private readonly dataSource: DataSource,
    private readonly hasher: SecretHasher,
    @Inject(CLIENT_TOKENS) private readonly tokens: ClientTokens,
  ) {}

  async receiverOf(authorization: string | undefined): Promise<Receiver> {
    const bearer = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? '');
    if (bearer) return this.byToken(bearer[1]);
    const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization ?? '');
    if (!match) throw unauthenticated();
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) throw unauthenticated();
    // RFC 6749 §2.3.1: both parts are form-urlencoded before they are joined.
    const clientId = safeDecode(decoded.slice(0, colon));
    const secret = safeDecode(decoded.slice(colon + 1));
    if (clientId === undefined || secret === undefined || clientId.length > 255 || secret.length > 500) throw unauthenticated();
    const app = await this.receiverApplication(clientId);
    if (!app?.secret || !this.hasher.matches(secret, app.secret)) throw unauthenticated();
    return receiverOf(app);
  }

  /** A live client credentials token of this instance with `ssf.manage`, held by a receiver application. */
  private async byToken(token: string): Promise<Receiver> {
    const held = await this.tokens.heldBy(token);
    if (!held?.scopes.includes(SSF_MANAGE_SCOPE)) throw unauthenticated();
    const app = await this.receiverApplication(held.clientId);
    if (!app) throw unauthenticated();
    return receiverOf(app);
  }

  /**
   * Only an application its organization made a receiver (`ssfReceiver`): a stream tells about every person it may
   * enter, which an application registered for sign-in alone was never meant to learn. Never a machine user, a SAML
   * application or a client that registered itself, whatever its token says.
   */
  private async receiverApplication(clientId: string): Promise<ClientRow | undefined> {
    return (await clientRows(this.dataSource, clientId)).find(
      (row) => row.src === 'app' && (row.kind === 'oidc' || row.kind === 'api') && flag(row.ssf_receiver),
    );
  }
}

function receiverOf(app: ClientRow): Receiver {
  return { clientId: app.client_id, orgId: app.org_id, appId: app.id };
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function unauthenticated(): DomainError {
  return new DomainError(
    ErrorCode.Unauthenticated,
    `the receiver must present a token of scope ${SSF_MANAGE_SCOPE} (client_credentials) or its client id and secret (HTTP Basic)`,
  );
}
