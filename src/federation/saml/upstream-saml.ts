import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type * as NodeSaml from '@node-saml/node-saml';
import type { SAML, SamlConfig } from '@node-saml/node-saml';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { Encryptor } from '../../common/crypto/encryptor.js';
import { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { firstSightOfAssertion } from '../federation.queries.js';
import type { IdpRow } from '../federation.queries.js';
import type { SamlSettings } from '../idp-settings.js';
import { ROUND_TRIP_MS } from '../round-trips.js';
import type { UpstreamIdentity, UpstreamSamlName } from '../upstream-oidc.js';
import { UpstreamAnswerRefused } from '../upstream-oidc.js';
import { pemOf } from './idp-metadata.js';
import { elements, parseXml, SAML as SAML_NS, text } from '../../common/xml/saml-xml.js';
import { samlEndpoints } from './sp-endpoints.js';
import { onFirstUse } from '../../common/modules/on-first-use.js';

// Loaded at the first SAML sign-in or metadata request, not at start-up (src/common/modules/on-first-use.ts).
const nodeSaml = onFirstUse<typeof NodeSaml>('@node-saml/node-saml');

const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';

/** At most 3 minutes of clock skew on NotBefore / NotOnOrAfter (docs/federation.md, "SAML"). */
export const CLOCK_SKEW_MS = 3 * 60 * 1000;
/** REFEDS MFA profile: the AuthnContextClassRef that says the IdP required a second factor. */
export const REFEDS_MFA = 'https://refeds.org/profile/mfa';
/** The largest SAMLResponse the ACS reads (base64), larger is 413 before any parsing. */
export const MAX_SAML_RESPONSE_BYTES = 256 * 1024;

/** What the ACS receives by HTTP-POST (SAML Bindings §3.5). */
export interface PostedResponse {
  SAMLResponse: string;
  RelayState: string;
}

/**
 * SAML 2.0 to an upstream IdP (docs/federation.md, "SAML") with @node-saml/node-saml: SP-initiated,
 * the AuthnRequest by HTTP-Redirect signed with this SP's key for the IdP, the response by HTTP-POST. node-saml
 * checks the signature of the Response or of every assertion (assertions must be signed) by the metadata's
 * certificates, reads the values from the signed element, checks the audience, the issuer, the time window and
 * InResponseTo (the round trip's own request only); this class adds the Recipient and Destination checks and the
 * replay cache of assertion IDs, shared by every process through the database.
 */
@Injectable()
export class UpstreamSaml {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly encryptor: Encryptor,
    private readonly hasher: SecretHasher,
    private readonly uow: UnitOfWork,
  ) {}

  /** This SP's metadata for the IdP (SAML Metadata §2.4.4), to hand to the upstream. */
  metadata(idp: IdpRow): string {
    const settings = samlSettingsOf(idp);
    const { entityId, acsUrl, sloUrl } = samlEndpoints(this.config.publicUrl, idp.id);
    // node-saml publishes a certificate only beside its key (neither key is written into the document).
    const spKey = idp.spPrivateKey === null ? undefined : this.encryptor.decrypt(idp.spPrivateKey);
    const xml = nodeSaml().generateServiceProviderMetadata({
      issuer: entityId,
      callbackUrl: acsUrl,
      identifierFormat: settings.nameIdFormat,
      wantAssertionsSigned: true,
      ...(settings.signAuthnRequests && spKey ? { privateKey: spKey, publicCerts: settings.spCertificate } : {}),
      ...(spKey ? { decryptionPvk: spKey, decryptionCert: settings.spCertificate } : {}),
      // Signed logout messages need this SP's key: published to every IdP, used with those that have an SLO endpoint.
      ...(spKey ? { logoutCallbackUrl: sloUrl, privateKey: spKey, publicCerts: settings.spCertificate } : {}),
    });
    // node-saml names its SingleLogoutService with the HTTP-POST binding (this one takes HTTP-Redirect only), and says
    // AuthnRequestsSigned wherever it has a key (this SP signs them only when `signAuthnRequests`).
    const redirectSlo = xml.replace(`Binding="${HTTP_POST}" Location="${sloUrl}"`, `Binding="${HTTP_REDIRECT}" Location="${sloUrl}"`);
    return settings.signAuthnRequests ? redirectSlo : redirectSlo.replace('AuthnRequestsSigned="true"', 'AuthnRequestsSigned="false"');
  }

  /** Where the browser goes: the IdP's SSO URL with an AuthnRequest of id `requestId` (signed unless turned off). */
  async authorizationUrl(idp: IdpRow, relayState: string, requestId: string): Promise<URL> {
    return new URL(await this.saml(idp, requestId).getAuthorizeUrlAsync(relayState, undefined, {}));
  }

  /**
   * The identity of a posted response to the round trip's request `requestId`, or of an IdP-initiated response
   * (`requestId` undefined: it must answer no request, SAML Profiles §4.1.5); rejects with a reason otherwise.
   */
  async identify(idp: IdpRow, posted: PostedResponse, requestId: string | undefined): Promise<UpstreamIdentity> {
    const { acsUrl } = samlEndpoints(this.config.publicUrl, idp.id);
    const responseXml = Buffer.from(posted.SAMLResponse, 'base64').toString('utf8');
    // The parser refuses DTDs and entities before node-saml parses anything (docs/federation.md, "SAML").
    const response = parseXml(responseXml);
    const { profile } = await this.saml(idp, requestId).validatePostResponseAsync({ SAMLResponse: posted.SAMLResponse, RelayState: posted.RelayState });
    if (!profile?.nameID) throw new UpstreamAnswerRefused('the response names no subject');
    const answered = [response.documentElement, ...elements(response, SAML_NS, 'SubjectConfirmationData')].some((e) => e.hasAttribute('InResponseTo'));
    // An unsolicited response answers nothing: one that names a request is someone's SP-initiated answer, taken elsewhere.
    if (requestId === undefined && answered) throw new UpstreamAnswerRefused('an IdP-initiated response answers no request (InResponseTo)');
    const destination = response.documentElement.getAttribute('Destination');
    if (destination && destination !== acsUrl) throw new UpstreamAnswerRefused('the response is addressed to another destination');
    // Values from the signed assertion only (signature wrapping): what node-saml validated.
    const assertion = parseXml(profile.getAssertionXml?.() ?? '');
    const root = assertion.documentElement;
    const confirmations = elements(assertion, SAML_NS, 'SubjectConfirmationData');
    if (confirmations.length === 0 || confirmations.some((c) => c.getAttribute('Recipient') !== acsUrl))
      throw new UpstreamAnswerRefused('the assertion is for another recipient');
    // The signed assertion's own Issuer (SAML Core §2.3.3): an IdP key that signs for several entities (one key per
    // tenant of a provider) must not let one of them speak for another.
    const issuer = Array.from(root.childNodes).find((n): n is Element => (n as Element).localName === 'Issuer' && (n as Element).namespaceURI === SAML_NS);
    if (text(issuer) !== samlSettingsOf(idp).entityId) throw new UpstreamAnswerRefused('the assertion is from another issuer');
    const assertionId = root.getAttribute('ID') ?? '';
    if (!assertionId) throw new UpstreamAnswerRefused('the assertion has no ID');
    const expires = Math.max(
      ...confirmations.map((c) => Date.parse(c.getAttribute('NotOnOrAfter') ?? '')).filter((t) => !Number.isNaN(t)),
      ...elements(assertion, SAML_NS, 'Conditions')
        .map((c) => Date.parse(c.getAttribute('NotOnOrAfter') ?? ''))
        .filter((t) => !Number.isNaN(t)),
      Date.now() + ROUND_TRIP_MS,
    );
    if (!(await this.firstSight(idp, 'saml-assertion', assertionId, expires + CLOCK_SKEW_MS)))
      throw new UpstreamAnswerRefused('the assertion was used before (replay)');
    const contexts = elements(assertion, SAML_NS, 'AuthnContextClassRef').map((e) => text(e));
    return {
      subject: profile.nameID,
      claims: attributesOf(profile as Record<string, unknown>),
      methods: contexts.includes(REFEDS_MFA) ? ['mfa'] : [],
      saml: samlNameOf(profile),
    };
  }

  /**
   * Records the ID of a message of the IdP (an assertion, a LogoutRequest) until `expiresAt`; false when any process
   * accepted it before (two at once: the primary key decides).
   */
  async firstSight(idp: IdpRow, kind: 'saml-assertion' | 'saml-logout-request', id: string, expiresAt: number): Promise<boolean> {
    try {
      return await this.uow.run((manager) => firstSightOfAssertion(manager, this.hasher.hash(`${kind}:${idp.id}:${id}`), idp.id, expiresAt, Date.now()));
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  private saml(idp: IdpRow, requestId: string | undefined): SAML {
    return this.client(idp, { requestId });
  }

  /**
   * node-saml for this IdP. `requestId`: the ID of the message sent (an AuthnRequest or LogoutRequest), and the only
   * InResponseTo accepted; undefined: a new ID, and InResponseTo not checked (an IdP-initiated response, checked by
   * `identify`). `logoutUrl`: where LogoutRequests and LogoutResponses go (the IdP's SingleLogoutService). Messages
   * are signed with this SP's key for the IdP where there is one (AuthnRequests only when `signAuthnRequests`).
   */
  client(idp: IdpRow, options: { requestId: string | undefined; logoutUrl?: string }): SAML {
    const { requestId, logoutUrl } = options;
    const settings = samlSettingsOf(idp);
    const { entityId, acsUrl } = samlEndpoints(this.config.publicUrl, idp.id);
    const spKey = idp.spPrivateKey === null ? undefined : this.encryptor.decrypt(idp.spPrivateKey);
    const signs = logoutUrl !== undefined || settings.signAuthnRequests;
    const config: SamlConfig = {
      entryPoint: settings.ssoUrl,
      ...(logoutUrl !== undefined ? { logoutUrl } : {}),
      issuer: entityId,
      callbackUrl: acsUrl,
      audience: entityId,
      idpIssuer: settings.entityId,
      idpCert: settings.certificates.map(pemOf),
      ...(signs && spKey ? { privateKey: spKey } : {}),
      ...(spKey ? { decryptionPvk: spKey } : {}),
      identifierFormat: settings.nameIdFormat,
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      signatureAlgorithm: 'sha256',
      digestAlgorithm: 'sha256',
      acceptedClockSkewMs: CLOCK_SKEW_MS,
      disableRequestedAuthnContext: true,
      // The request id is the round trip's own (round-trips.ts): InResponseTo must name it, nothing else.
      generateUniqueId: () => requestId ?? `_${randomBytes(20).toString('hex')}`,
      validateInResponseTo: requestId === undefined ? nodeSaml().ValidateInResponseTo.never : nodeSaml().ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: ROUND_TRIP_MS,
      cacheProvider: {
        saveAsync: async (key: string, value: string) => ({ value, createdAt: Date.now() }),
        // node-saml reads the value as the request's creation time; the round trip is unexpired (checked before).
        getAsync: async (key: string) => (key === requestId ? new Date().toISOString() : null),
        removeAsync: async (key: string | null) => key,
      },
    };
    return new (nodeSaml().SAML)(config);
  }
}

/** What single logout names the person by (SAML Core §3.7.1): the NameID as the IdP wrote it, and its session. */
function samlNameOf(profile: NodeSaml.Profile): UpstreamSamlName {
  return {
    nameId: profile.nameID,
    format: profile.nameIDFormat,
    ...(profile.nameQualifier ? { nameQualifier: profile.nameQualifier } : {}),
    ...(profile.spNameQualifier ? { spNameQualifier: profile.spNameQualifier } : {}),
    ...(profile.sessionIndex ? { sessionIndex: profile.sessionIndex } : {}),
  };
}

/** The assertion's attributes as claims: a single value as text, several as a list (`profile.attributes` of node-saml). */
function attributesOf(profile: Record<string, unknown>): Record<string, unknown> {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, Array.isArray(value) && value.length === 1 ? value[0] : value]));
}

export function samlSettingsOf(idp: IdpRow): SamlSettings {
  return JSON.parse(idp.settings) as SamlSettings;
}
