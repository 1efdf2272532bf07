import { SSF_MANAGE_SCOPE } from '../../common/auth/client-tokens.js';
import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { JSONWebKeySet } from 'jose';
import type { EntityManager } from 'typeorm';
import { USER_TOKENS } from '../../common/auth/user-tokens.js';
import type { UserTokens } from '../../common/auth/user-tokens.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { generateSecret, SecretHasher } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { outboundFetch } from '../../common/net/outbound-fetch.js';
import { idpsOf, userOfIdentity } from '../../federation/federation.queries.js';
import type { OidcSettings } from '../../federation/idp-settings.js';
import { UserAccess } from '../../users/acting/user-access.service.js';
import { isInactive } from '../../users/rules/user-state.js';
import { UserLifecycleService } from '../../users/user-lifecycle.service.js';
import { CAEP_CREDENTIAL_CHANGE, CAEP_SESSION_REVOKED, RISC_ACCOUNT_DISABLED, RISC_ACCOUNT_PURGED } from '../event-uris.js';
import { PUSH_METHOD } from '../transmitter/ssf-streams.service.js';
import { RefusedSet, SET_MAX_AGE_S, verifySet } from './set-verifier.js';
import { deleteSubscription, firstUseOfJti, insertSubscription, subscriptionOf } from './subscription.queries.js';
import type { SubscriptionRow } from './subscription.queries.js';

/** What this receiver asks an upstream to send (docs/signals.md, "Receiving"). */
const EVENTS_WANTED = [CAEP_SESSION_REVOKED, RISC_ACCOUNT_DISABLED, RISC_ACCOUNT_PURGED, CAEP_CREDENTIAL_CHANGE];
/** A transmitter's key set is read again after this, or at once when a SET names a key it lacks. */
const KEYS_CACHE_MS = 300_000;

/**
 * Shared Signals as a receiver (SSF 1.0; docs/signals.md, "Receiving"): an organization's OIDC upstream IdP that is a
 * transmitter is subscribed to (a push stream to `/ssf/v1/receive/{idpId}`, RFC 8935), and the SETs it pushes are
 * verified (set-verifier.ts; `jti` used once across processes) and acted on for the user the subject is linked to:
 * `session-revoked` ends their sessions and tokens here, which sends back-channel logout to the applications they
 * signed in to; `account-disabled` and `account-purged` deactivate them, which does the same; `credential-change` ends
 * their sign-in sessions, so that the next sign-in is a new one. Whatever is refused changes nothing but
 * its event `ssf.set.refused`.
 */
@Injectable()
export class SsfReceiverService {
  private readonly fetch: ReturnType<typeof outboundFetch>;
  private readonly keySets = new Map<string, { keys: JSONWebKeySet; at: number }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly encryptor: Encryptor,
    private readonly hasher: SecretHasher,
    private readonly events: EventStore,
    private readonly access: UserAccess,
    private readonly lifecycle: UserLifecycleService,
    @Inject(USER_TOKENS) private readonly tokens: UserTokens,
  ) {
    this.fetch = outboundFetch({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, timeoutMs: config.idpTimeoutMs, maxBodyBytes: 256 * 1024 });
  }

  async subscription(orgId: string, idpId: string): Promise<SubscriptionRow | undefined> {
    const found = await subscriptionOf(this.uow.manager, idpId);
    return found?.orgId === orgId ? found : undefined;
  }

  /** The IdP's subscription, if any; 404 for an IdP that is not the organization's. */
  async subscriptionOfIdp(orgId: string, idpId: string): Promise<SubscriptionRow | undefined> {
    if ((await idpsOf(this.uow.manager, orgId, idpId)).length === 0) throw DomainError.notFound('identity provider');
    return this.subscription(orgId, idpId);
  }

  /** Reads the upstream's `/.well-known/ssf-configuration` (SSF 1.0 §7.2) and creates a push stream there. */
  async subscribe(editorUserId: string | null, orgId: string, idpId: string): Promise<SubscriptionRow> {
    const [idp] = await idpsOf(this.uow.manager, orgId, idpId);
    if (!idp) throw DomainError.notFound('identity provider');
    if (idp.type !== 'oidc' || !idp.clientSecret) throw DomainError.invalid('only an OIDC identity provider with a client secret can be subscribed to');
    if (await subscriptionOf(this.uow.manager, idpId)) throw DomainError.alreadyExists('the identity provider is subscribed to already');
    const settings = JSON.parse(idp.settings) as OidcSettings;
    const secret = this.encryptor.decrypt(idp.clientSecret);
    const metadata = await this.json(`${settings.issuer.replace(/\/$/, '')}/.well-known/ssf-configuration`, {
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    const issuer = metadata.issuer;
    const jwksUri = metadata.jwks_uri;
    const configurationEndpoint = metadata.configuration_endpoint;
    if (typeof issuer !== 'string' || typeof jwksUri !== 'string' || typeof configurationEndpoint !== 'string')
      throw DomainError.invalid('the transmitter configuration lacks issuer, jwks_uri or configuration_endpoint');
    const methods = Array.isArray(metadata.delivery_methods_supported) ? metadata.delivery_methods_supported : [];
    if (!methods.includes(PUSH_METHOD)) throw DomainError.invalid('the transmitter does not push (RFC 8935)');
    const pushToken = generateSecret();
    const authorization = await this.managementAuthorization(settings, secret);
    const stream = await this.json(configurationEndpoint, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization },
      body: JSON.stringify({
        delivery: { method: PUSH_METHOD, endpoint_url: `${this.config.publicUrl}/ssf/v1/receive/${idpId}`, authorization_header: `Bearer ${pushToken}` },
        events_requested: EVENTS_WANTED,
        description: `Portcullis ${this.config.publicUrl}`,
      }),
    });
    if (typeof stream.stream_id !== 'string') throw DomainError.invalid('the transmitter created no stream');
    const row: SubscriptionRow = {
      idpId,
      orgId,
      issuer,
      audience: typeof stream.aud === 'string' ? stream.aud : settings.clientId,
      jwksUri,
      configurationEndpoint,
      streamId: stream.stream_id,
      pushTokenHash: this.hasher.hash(pushToken),
      createdAt: Date.now(),
    };
    await this.uow.run(async (manager) => {
      await insertSubscription(manager, row);
      await this.events.push(manager, {
        type: 'org.idp.signals.subscribed',
        aggregateType: 'idp',
        aggregateId: idpId,
        resourceOwner: orgId,
        editorUserId,
        payload: { issuer, streamId: row.streamId },
      });
    });
    return row;
  }

  /** Ends the subscription here; the stream at the upstream is deleted too when it can be reached. */
  async unsubscribe(editorUserId: string | null, orgId: string, idpId: string): Promise<void> {
    const found = await this.subscription(orgId, idpId);
    if (!found) throw DomainError.notFound('subscription');
    await this.uow.run(async (manager) => {
      await deleteSubscription(manager, idpId);
      await this.events.push(manager, {
        type: 'org.idp.signals.unsubscribed',
        aggregateType: 'idp',
        aggregateId: idpId,
        resourceOwner: orgId,
        editorUserId,
        payload: { issuer: found.issuer, streamId: found.streamId },
      });
    });
    const [idp] = await idpsOf(this.uow.manager, orgId, idpId);
    if (!idp?.clientSecret) return;
    const settings = JSON.parse(idp.settings) as OidcSettings;
    const url = `${found.configurationEndpoint}?stream_id=${encodeURIComponent(found.streamId)}`;
    await this.managementAuthorization(settings, this.encryptor.decrypt(idp.clientSecret))
      .then((authorization) => this.fetch(url, { method: 'DELETE', headers: { authorization } }))
      .catch(() => undefined);
  }

  /**
   * How this receiver calls the transmitter's stream management endpoints (SSF 1.0 §8.1.1, `authorization_schemes`
   * `urn:ietf:rfc:6749`): a token of scope `ssf.manage` from the upstream's token endpoint by client credentials
   * (RFC 6749 §4.4), authenticated as the identity provider's client is at sign-in. One token per call: a stream is
   * managed a few times in its life.
   */
  private async managementAuthorization(settings: OidcSettings, secret: string): Promise<string> {
    const discovery = await this.json(`${settings.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, {
      method: 'GET',
      headers: { accept: 'application/json' },
    });
    if (typeof discovery.token_endpoint !== 'string') throw DomainError.invalid('the upstream names no token_endpoint');
    const form = new URLSearchParams({ grant_type: 'client_credentials', scope: SSF_MANAGE_SCOPE });
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
    if (settings.authMethod === 'client_secret_post') {
      form.set('client_id', settings.clientId);
      form.set('client_secret', secret);
    } else {
      // RFC 6749 §2.3.1: each part form-urlencoded before they are joined.
      headers.authorization = `Basic ${Buffer.from(`${formEncoded(settings.clientId)}:${formEncoded(secret)}`).toString('base64')}`;
    }
    const answer = await this.json(
      discovery.token_endpoint,
      { method: 'POST', headers, body: form.toString() },
      'the upstream refused a token of scope ssf.manage',
    );
    if (typeof answer.access_token !== 'string') throw DomainError.invalid('the upstream answered no access_token');
    return `Bearer ${answer.access_token}`;
  }

  /** RFC 8935 §2: one pushed SET. Resolves when it was accepted (and acted on); throws RefusedSet otherwise. */
  async receive(idpId: string, authorization: string | undefined, token: unknown): Promise<void> {
    const subscription = await subscriptionOf(this.uow.manager, idpId);
    const bearer = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (!subscription || !bearer || !this.hasher.matches(bearer, subscription.pushTokenHash))
      throw new RefusedSet('authentication_failed', 'no subscription, or a wrong authorization');
    try {
      if (typeof token !== 'string' || token.length === 0 || token.length > 64 * 1024) throw new RefusedSet('invalid_request', 'no SET in the body');
      const set = await this.verified(token.trim(), subscription);
      await this.uow.run(async (manager) => {
        const userId = await userOfIdentity(manager, idpId, set.subject);
        if (!userId) throw new RefusedSet('invalid_request', 'unknown subject', set.jti);
        const jtiHash = createHash('sha256').update(`${subscription.issuer}\0${set.jti}`).digest('hex');
        if (!(await firstUseOfJti(manager, jtiHash, idpId, (set.iat + SET_MAX_AGE_S + 120) * 1000)))
          throw new RefusedSet('invalid_request', 'jti already used', set.jti);
        await this.act(manager, subscription, userId, set.eventUri);
        await this.record(manager, subscription, 'ssf.set.accepted', { jti: set.jti, event: set.eventUri, userId });
      });
    } catch (error) {
      if (!(error instanceof RefusedSet)) throw error;
      await this.uow.run((manager) => this.record(manager, subscription, 'ssf.set.refused', { reason: error.reason, err: error.err, jti: error.jti ?? '' }));
      throw error;
    }
  }

  private async act(manager: EntityManager, subscription: SubscriptionRow, userId: string, eventUri: string): Promise<void> {
    if (eventUri === RISC_ACCOUNT_DISABLED || eventUri === RISC_ACCOUNT_PURGED) {
      // RISC 1.0 §2.3: a purged account is gone at the upstream for good. Here the person is deactivated as for a
      // disabled one, not deleted: what they did here stays theirs, and an administrator decides the rest.
      const user = await this.access.actOn(manager, null, subscription.orgId, userId);
      if (!isInactive(user)) await this.lifecycle.deactivateIn(manager, null, user);
      await this.tokens.revokeAll(manager, userId);
    } else if (eventUri === CAEP_SESSION_REVOKED) {
      await this.tokens.revokeAll(manager, userId);
    } else if (eventUri === CAEP_CREDENTIAL_CHANGE) {
      // CAEP 1.0 §3.2: the credential the person proved themselves with upstream changed. Their sign-in sessions
      // here end, as a sign-out would end them (its applications get back-channel logout), so that no session
      // reaches an application without a new sign-in; their refresh tokens stay: a changed password is no compromise.
      for (const session of await this.tokens.sessions(userId)) await this.tokens.endSession(manager, userId, session.sessionId);
    }
    // assurance-level-change, account-enabled, identifier-changed: recorded, nothing changes (docs/signals.md, "Receiving").
  }

  private async record(manager: EntityManager, subscription: SubscriptionRow, type: 'ssf.set.accepted' | 'ssf.set.refused', payload: Record<string, string>) {
    await this.events.push(manager, {
      type,
      aggregateType: 'idp',
      aggregateId: subscription.idpId,
      resourceOwner: subscription.orgId,
      editorUserId: null,
      payload,
    });
  }

  private async verified(token: string, subscription: SubscriptionRow) {
    try {
      return await verifySet(token, subscription, await this.keysOf(subscription, false));
    } catch (error) {
      // A key rotated at the transmitter since the set was read: read it again once.
      if (!(error instanceof RefusedSet) || error.err !== 'invalid_key' || error.reason === 'unsigned') throw error;
      return verifySet(token, subscription, await this.keysOf(subscription, true));
    }
  }

  private async keysOf(subscription: SubscriptionRow, fresh: boolean): Promise<JSONWebKeySet> {
    const cached = this.keySets.get(subscription.idpId);
    if (cached && !fresh && Date.now() - cached.at < KEYS_CACHE_MS) return cached.keys;
    const body = await this.json(subscription.jwksUri, { method: 'GET', headers: { accept: 'application/json' } }).catch(() => {
      throw new RefusedSet('invalid_key', "the transmitter's key set could not be read");
    });
    if (!Array.isArray(body.keys)) throw new RefusedSet('invalid_key', "the transmitter's jwks_uri holds no key set");
    const keys = { keys: body.keys } as JSONWebKeySet;
    this.keySets.set(subscription.idpId, { keys, at: Date.now() });
    return keys;
  }

  private async json(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string },
    refusal?: string,
  ): Promise<Record<string, unknown>> {
    let answer: Response;
    try {
      answer = await this.fetch(url, init);
    } catch (error) {
      throw DomainError.invalid(`${url} could not be reached (${error instanceof Error ? error.message : String(error)})`);
    }
    const text = await answer.text();
    if (answer.status < 200 || answer.status > 299) {
      // An OAuth error (RFC 6749 §5.2) says why; nothing else of the answer is repeated.
      const oauthError = /"error"\s*:\s*"([a-z_]{1,64})"/.exec(text)?.[1];
      throw DomainError.invalid(`${refusal ? `${refusal}: ` : ''}${url} answered ${answer.status}${oauthError ? ` (${oauthError})` : ''}`);
    }
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw DomainError.invalid(`${url} answered no JSON`);
    }
  }
}

function formEncoded(text: string): string {
  return encodeURIComponent(text).replace(/%20/g, '+');
}
