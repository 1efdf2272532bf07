import { DomainError } from '../common/errors/domain-error.js';
import { absoluteUrlProblem } from '../common/net/configured-target.js';
import { domainName } from './domains/domain-name.js';

/** The protocols of an upstream IdP (docs/federation.md). */
export const IDP_TYPES = ['oidc', 'saml'] as const;
export type IdpType = (typeof IDP_TYPES)[number];

/** Client authentication at the upstream's token endpoint (OpenID Connect Core §9). */
export const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

/** The user field an automatic link matches on (docs/federation.md, "Who the upstream identity is"). */
export const LINK_BY = ['externalId', 'userName', 'email'] as const;
export type LinkBy = (typeof LINK_BY)[number];

/** `local`: the login policy's own second factor; `upstream`: an upstream `amr` with `mfa` counts as it. */
export const MFA_MODES = ['local', 'upstream'] as const;
export type MfaMode = (typeof MFA_MODES)[number];

export const CLAIM_KEYS = ['userName', 'email', 'givenName', 'familyName', 'externalId'] as const;
export type ClaimMapping = Partial<Record<(typeof CLAIM_KEYS)[number], string>>;

export const IDP_BOUNDS = {
  name: 200,
  url: 2000,
  clientId: 255,
  clientSecret: 500,
  claimName: 200,
  scopes: 20,
  domains: 50,
  domain: 253,
  metadataXml: 100_000,
  nameIdFormat: 200,
  landing: 2000,
} as const;

/** The standard claims (OpenID Connect Core §5.1), used where a mapping names none. */
export const DEFAULT_CLAIMS: ClaimMapping = { userName: 'preferred_username', email: 'email', givenName: 'given_name', familyName: 'family_name' };
export const DEFAULT_SCOPES = ['openid', 'profile', 'email'];

/**
 * The claim whose value is an OIDC identity's subject (docs/federation.md, "Who the upstream identity is"): `sub` by
 * default (OpenID Connect Core §2); Entra ID's stable id for a person across applications is `oid`.
 */
export const DEFAULT_SUBJECT_CLAIM = 'sub';

/** What the `settings` column holds for an OIDC IdP: everything but the secret and the domains. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  authMethod: AuthMethod;
  scopes: string[];
  /** Absent in IdPs stored before it existed: `sub`, as then (subjectClaimOf). */
  subjectClaim?: string;
  claims: ClaimMapping;
  link: { by: LinkBy; from: string } | null;
  jit: boolean;
  mfa: MfaMode;
  /**
   * Whether its Identity Assertion JWT Authorization Grants (ID-JAGs) are redeemed at the token endpoint (docs/agents.md,
   * "Enterprise-managed authorization"); absent in IdPs stored before it existed: off.
   */
  acceptIdJag?: boolean;
  /** Set while the issuer's host has not resolved (it did not when set) and no call has reached the upstream since. */
  unreached?: true;
}

/** SAML 2.0 NameID formats (SAML Core §8.3); persistent is preferred (docs/federation.md, "SAML"). */
export const NAME_ID_PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/** What the `settings` column holds for a SAML IdP: its metadata as read, and how its assertions are mapped. */
export interface SamlSettings {
  /** The IdP's entity id, SSO URL (HTTP-Redirect binding) and signing certificates (base64 DER), from its metadata. */
  entityId: string;
  ssoUrl: string;
  certificates: string[];
  /** Where the metadata was read from, if it was given as a URL. */
  metadataUrl: string | null;
  nameIdFormat: string;
  attributes: ClaimMapping;
  signAuthnRequests: boolean;
  /** This SP's certificate for this IdP (PEM); its private key is kept encrypted beside the settings. */
  spCertificate: string;
  link: { by: LinkBy; from: string } | null;
  jit: boolean;
  mfa: MfaMode;
  /** Whether a response nobody here asked for (IdP-initiated) may sign in; off unless set (docs/federation.md). */
  allowIdpInitiated: boolean;
  /** Where an IdP-initiated sign-in lands: a path on this instance or a URL of an application of the organization. */
  idpInitiatedLanding: string | null;
  /** The IdP's SingleLogoutService of the HTTP-Redirect binding, from its metadata (absent: no single logout). */
  sloUrl?: string | null;
  /** Where its LogoutResponses go, when the metadata names a ResponseLocation apart from the Location. */
  sloResponseUrl?: string | null;
  /**
   * Set while the metadata URL's host has not resolved (it did not when set): the metadata is not read yet, and the
   * entity id, SSO URL and certificates are empty until the first sign-in or test sign-in reads it.
   */
  unreached?: true;
}

/** The claim an OIDC IdP's identities are keyed by. */
export function subjectClaimOf(settings: OidcSettings): string {
  return settings.subjectClaim ?? DEFAULT_SUBJECT_CLAIM;
}

/** The domains as stored (domain-name.ts), each at most once; 400 naming the first bad one. */
export function normalisedDomains(domains: readonly string[] | undefined): string[] {
  const out = (domains ?? []).map((d) => domainName(d, 'domains'));
  const twice = out.find((d, i) => out.indexOf(d) !== i);
  if (twice !== undefined) throw invalid('domains', `domains: "${twice}" is given twice`);
  return out;
}

/** Why an issuer cannot be used (shape only; where it points is the outbound check's). OpenID Connect Discovery §2. */
export function issuerProblem(issuer: string): string | undefined {
  const problem = absoluteUrlProblem(issuer);
  return problem && `issuer ${problem}`;
}

/** A client secret is needed exactly by the secret methods: private_key_jwt signs with the organization's key. */
export function secretProblem(authMethod: AuthMethod, hasSecret: boolean): string | undefined {
  if (authMethod === 'private_key_jwt') return hasSecret ? 'clientSecret: private_key_jwt uses no client secret' : undefined;
  return hasSecret ? undefined : `clientSecret is required for ${authMethod}`;
}

/**
 * The client secret is write-only (docs/federation.md): it goes to the token endpoint the issuer's discovery names,
 * so a new issuer without it would let an editor read the stored one at a host of their own. Such a change
 * carries the secret again.
 */
export function movedSecretProblem(before: OidcSettings, after: OidcSettings, secretSent: boolean): string | undefined {
  if (secretSent || after.issuer === before.issuer || after.authMethod === 'private_key_jwt') return undefined;
  return 'clientSecret must be sent again when the issuer changes: the stored secret never goes to a new issuer';
}

export const invalid = DomainError.invalidField;
