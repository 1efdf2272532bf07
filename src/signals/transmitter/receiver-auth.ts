import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { flag } from '../../common/database/column-values.js';
import { clientRows } from '../../users/queries/oidc-clients.js';

/** A receiver as the stream management endpoints know it: an application of an organization. */
export interface Receiver {
  clientId: string;
  orgId: string;
  /** The application's id: the aggregate of its streams' events. */
  appId: string;
}

/**
 * Who calls the stream management endpoints (SSF 1.0 §8.1): a confidential OIDC application of this instance that
 * its organization made a receiver (`ssfReceiver`),
 * authenticated by its client id and secret in HTTP Basic as at the token endpoint (RFC 6749 §2.3.1), the way
 * `authorization_schemes` `urn:ietf:rfc:6749` announces. Every stream it manages is its own: it sees and changes no
 * other application's (docs/signals.md, "Receivers").
 */
@Injectable()
export class ReceiverAuth {
  constructor(
    private readonly dataSource: DataSource,
    private readonly hasher: SecretHasher,
  ) {}

  async receiverOf(authorization: string | undefined): Promise<Receiver> {
    const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization ?? '');
    if (!match) throw unauthenticated();
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 1) throw unauthenticated();
    // RFC 6749 §2.3.1: both parts are form-urlencoded before they are joined.
    const clientId = safeDecode(decoded.slice(0, colon));
    const secret = safeDecode(decoded.slice(colon + 1));
    if (clientId === undefined || secret === undefined || clientId.length > 255 || secret.length > 500) throw unauthenticated();
    // Only an application its organization made a receiver (`ssfReceiver`): a stream tells about every person it
    // may enter, which an application registered for sign-in alone was never meant to learn.
    const app = (await clientRows(this.dataSource, clientId)).find((row) => row.src === 'app' && row.kind === 'oidc' && flag(row.ssf_receiver));
    if (!app?.secret || !this.hasher.matches(secret, app.secret)) throw unauthenticated();
    return { clientId: app.client_id, orgId: app.org_id, appId: app.id };
  }
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

function unauthenticated(): DomainError {
  return new DomainError(ErrorCode.Unauthenticated, 'the receiver must authenticate with its client id and secret (HTTP Basic)');
}
