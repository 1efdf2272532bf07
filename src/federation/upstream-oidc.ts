import { Inject, Injectable } from '@nestjs/common';
import * as client from 'openid-client';
import type { Configuration } from 'openid-client';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { outboundFetch } from '../common/net/outbound-fetch.js';
import type { IdpRow } from './federation.queries.js';
import { subjectClaimOf } from './idp-settings.js';
import type { OidcSettings } from './idp-settings.js';
import type { RoundTripSecrets, UpstreamAnswer } from './round-trips.js';

/** Signatures an upstream ID token may carry (RFC 7518 §3.1, RFC 8037): never `none`, never an HMAC over a shared secret. */
export const ID_TOKEN_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The most an upstream's clock may run ahead (docs/federation.md, "The round trip": at most 3 minutes of skew). */
const CLOCK_SKEW_S = 180;

/** The longest subject an identity holds (OpenID Connect Core §2: `sub` is at most 255 ASCII characters). */
const MAX_SUBJECT_LENGTH = 255;

/** An answer of the upstream that failed a check of ours (beside openid-client's own). */
export class UpstreamAnswerRefused extends Error {}

/** The upstream could not be reached (its host does not resolve, or it did not answer as asked). */
export class UpstreamUnreachable extends Error {}

/** A verified answer without the IdP's subject claim as a string: no identity can be named (docs/federation.md, "Refusals"). */
export class SubjectClaimMissing extends Error {
  constructor(readonly claim: string) {
    super(`the identity provider sent no ${claim} claim as a string of at most 255 characters, which names the identity here`);
  }
}

/** Discovery documents and key sets are kept this long, then fetched again (keys rotate). */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;

/**
 * A key set is read again before its time when an ID-JAG names a key it lacks (the IdP rotated), but at most once
 * this often per IdP: a client sending made-up `kid`s must not make this instance fetch the IdP's keys per request.
 */
const KEY_MISS_REFETCH_MS = 30 * 1000;

/** Who the upstream says signed in, from a verified ID token (and user info where the token lacks a mapped claim). */
export interface UpstreamIdentity {
  subject: string;
  claims: Record<string, unknown>;
  /** RFC 8176 methods the upstream names (`amr`), as strings. */
  methods: string[];
  /** SAML: the assertion's NameID and SessionIndex, for single logout with the IdP (docs/federation.md). */
  saml?: UpstreamSamlName;
}

/** An upstream SAML assertion's subject as a LogoutRequest names it again (SAML Core §3.7.1). */
export interface UpstreamSamlName {
  nameId: string;
  format: string;
  nameQualifier?: string;
  spNameQualifier?: string;
  sessionIndex?: string;
}

/** Signs a private_key_jwt client assertion with this instance's current key (oidc/keys). */
export type AssertionKey = () => Promise<Parameters<typeof client.PrivateKeyJwt>[0]>;

/**
 * OpenID Connect to an upstream identity provider (docs/federation.md) with openid-client:
 * discovery from the issuer, the authorization code flow with PKCE S256, `state` and `nonce`, the ID token's
 * signature checked against the issuer's JWKS with an algorithm allow-list, then `iss`, `aud`, `exp` and
 * `nonce`; user info when a mapped claim is missing. Every request goes through the outbound checks.
 */
@Injectable()
export class UpstreamOidc {
  private readonly configurations = new Map<string, { version: number; expires: number; config: Promise<Configuration> }>();
  private readonly keySets = new Map<string, { version: number; expires: number; keys: Promise<{ keys: object[] }> }>();
  /** When each IdP's key set was last read again for a key it lacked (KEY_MISS_REFETCH_MS). */
  private readonly keyMisses = new Map<string, number>();
  private readonly fetch: ReturnType<typeof outboundFetch>;
  private assertionKey: AssertionKey | undefined;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly encryptor: Encryptor,
  ) {
    this.fetch = outboundFetch({ allowPrivateNetworks: config.outboundAllowPrivateNetworks, timeoutMs: config.idpTimeoutMs, maxBodyBytes: 1024 * 1024 });
  }

  /** The key private_key_jwt signs with; set by the OIDC module, which owns the keys. */
  useAssertionKey(key: AssertionKey): void {
    this.assertionKey = key;
  }

  /** Where the browser goes: the upstream's authorization endpoint with this round trip's state, nonce and PKCE challenge. */
  async authorizationUrl(idp: IdpRow, redirectUri: string, state: string, secrets: RoundTripSecrets, loginHint?: string): Promise<URL> {
    const settings = settingsOf(idp);
    const config = await this.configuration(idp);
    return client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: settings.scopes.join(' '),
      state,
      nonce: secrets.nonce!,
      code_challenge: await client.calculatePKCECodeChallenge(secrets.verifier!),
      code_challenge_method: 'S256',
      ...(loginHint ? { login_hint: loginHint } : {}),
    });
  }

  /** Redeems the code of an answered round trip; rejects with an openid-client error on any failed check. */
  async identify(idp: IdpRow, redirectUri: string, answer: UpstreamAnswer, secrets: RoundTripSecrets): Promise<UpstreamIdentity> {
    const settings = settingsOf(idp);
    const config = await this.configuration(idp);
    const callback = new URL(redirectUri);
    callback.searchParams.set('code', answer.code ?? '');
    if (answer.iss !== undefined) callback.searchParams.set('iss', answer.iss);
    // The state was checked by finding its round trip (round-trips.ts); it is kept only as a hash.
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: secrets.verifier!,
      expectedNonce: secrets.nonce!,
      expectedState: client.skipStateCheck,
      idTokenExpected: true,
    });
    const idToken = tokens.claims()!;
    // openid-client checks `exp` and `nbf`; a token issued in the future was not issued by an honest clock (OpenID Connect Core §3.1.3.7, 10).
    if (idToken.iat > Math.floor(Date.now() / 1000) + CLOCK_SKEW_S) throw new UpstreamAnswerRefused('the ID token was issued in the future');
    let claims: Record<string, unknown> = { ...idToken };
    const subjectClaim = subjectClaimOf(settings);
    const mapped = [subjectClaim, ...Object.values(settings.claims)].filter((name): name is string => typeof name === 'string');
    if (mapped.some((name) => claims[name] === undefined) && config.serverMetadata().userinfo_endpoint) {
      // OpenID Connect Core §5.3.2: the user info's `sub` must be the ID token's.
      const info = await client.fetchUserInfo(config, tokens.access_token, idToken.sub);
      claims = { ...info, ...claims };
    }
    const subject = claims[subjectClaim];
    if (typeof subject !== 'string' || subject.length === 0 || subject.length > MAX_SUBJECT_LENGTH) throw new SubjectClaimMissing(subjectClaim);
    const amr = Array.isArray(idToken.amr) ? idToken.amr.filter((m): m is string => typeof m === 'string' && m.length <= 64).slice(0, 16) : [];
    return { subject, claims, methods: amr };
  }

  /**
   * The upstream's signing keys (its discovery's `jwks_uri`, OpenID Connect Discovery §3), kept per IdP version as
   * long as its discovery document: what its ID-JAGs are verified with (docs/agents.md).
   */
  keySet(idp: IdpRow): Promise<{ keys: object[] }> {
    const cached = this.keySets.get(idp.id);
    if (cached && cached.version === idp.changedAt && cached.expires > Date.now()) return cached.keys;
    return this.refetchKeys(idp);
  }

  /**
   * The key set again, read anew if the kept one lacks the key `kid` names and no such read happened in the last
   * KEY_MISS_REFETCH_MS: an IdP that rotates its keys signs with the new one at once (as openid-client does for ID
   * tokens, a missing key is looked up again rather than refused until the cache ends).
   */
  async keySetWith(idp: IdpRow, kid: string | undefined, now = Date.now()): Promise<{ keys: object[] }> {
    const kept = await this.keySet(idp);
    if (kid === undefined || kept.keys.some((key) => (key as { kid?: unknown }).kid === kid)) return kept;
    if (now - (this.keyMisses.get(idp.id) ?? Number.NEGATIVE_INFINITY) < KEY_MISS_REFETCH_MS) return kept;
    this.keyMisses.set(idp.id, now);
    return this.refetchKeys(idp);
  }

  private refetchKeys(idp: IdpRow): Promise<{ keys: object[] }> {
    const keys = this.fetchKeys(idp);
    this.keySets.set(idp.id, { version: idp.changedAt, expires: Date.now() + DISCOVERY_TTL_MS, keys });
    keys.catch(() => this.keySets.delete(idp.id));
    return keys;
  }

  private async fetchKeys(idp: IdpRow): Promise<{ keys: object[] }> {
    const jwksUri = (await this.configuration(idp)).serverMetadata().jwks_uri;
    if (!jwksUri) throw new UpstreamUnreachable('the identity provider publishes no jwks_uri');
    const res = await this.fetch(jwksUri, { method: 'GET', headers: { accept: 'application/json' } });
    if (!res.ok) throw new UpstreamUnreachable(`the identity provider's keys answered ${res.status}`);
    const body = (await res.json()) as { keys?: unknown };
    if (!Array.isArray(body.keys)) throw new UpstreamUnreachable("the identity provider's jwks_uri holds no key set");
    return { keys: body.keys as object[] };
  }

  /** The upstream's discovery document and client, kept per IdP version for a while. */
  private configuration(idp: IdpRow): Promise<Configuration> {
    const cached = this.configurations.get(idp.id);
    if (cached && cached.version === idp.changedAt && cached.expires > Date.now()) return cached.config;
    const config = this.discover(idp);
    this.configurations.set(idp.id, { version: idp.changedAt, expires: Date.now() + DISCOVERY_TTL_MS, config });
    config.catch(() => this.configurations.delete(idp.id));
    return config;
  }

  private async discover(idp: IdpRow): Promise<Configuration> {
    const settings = settingsOf(idp);
    const secret = idp.clientSecret === null ? undefined : this.encryptor.decrypt(idp.clientSecret);
    const auth = await this.clientAuth(settings, secret);
    // Plain http only where private networks are allowed (development and tests): identity-providers.service.ts.
    const insecure = new URL(settings.issuer).protocol === 'http:';
    const config = await client.discovery(
      new URL(settings.issuer),
      settings.clientId,
      // An array: oauth4webapi accepts any of them, and refuses `none` and HMAC algorithms.
      { id_token_signed_response_alg: ID_TOKEN_ALGS as unknown as string },
      auth,
      {
        [client.customFetch]: this.fetch as never,
        timeout: Math.ceil(this.config.idpTimeoutMs / 1000),
        execute: insecure ? [client.allowInsecureRequests] : [],
      },
    );
    client.enableNonRepudiationChecks(config);
    return config;
  }

  private async clientAuth(settings: OidcSettings, secret: string | undefined): Promise<client.ClientAuth> {
    if (settings.authMethod === 'client_secret_post') return client.ClientSecretPost(secret);
    if (settings.authMethod === 'client_secret_basic') return client.ClientSecretBasic(secret);
    if (!this.assertionKey) throw new Error('private_key_jwt needs the signing keys, which are not available');
    return client.PrivateKeyJwt(await this.assertionKey());
  }
}

export function settingsOf(idp: IdpRow): OidcSettings {
  return JSON.parse(idp.settings) as OidcSettings;
}
