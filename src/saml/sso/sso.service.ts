import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { PairwiseSubjects } from '../../common/crypto/pairwise-subjects.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { XmlRefused } from '../../common/xml/saml-xml.js';
import { HiddenClientSignIn } from '../../oidc/hidden-client/hidden-client-sign-in.js';
import type { SignedInUser } from '../../oidc/hidden-client/hidden-client-sign-in.js';
import { organizationExists } from '../../users/queries/organizations.js';
import { samlServiceProvider } from '../../users/resources/saml-settings.js';
import type { SamlServiceProvider } from '../../users/resources/saml-settings.js';
import type { SamlNameIdFormat } from '../../users/entities/saml-application.entity.js';
import { NAME_ID_FORMATS } from '../idp-metadata.js';
import { idpEndpoints } from '../../users/saml-idp-endpoints.js';
import { SamlKeysService } from '../keys/saml-keys.service.js';
import { AuthnRequestRefused, checkAuthnRequest, readAuthnRequest, registeredAcs } from '../protocol/authn-request.js';
import type { ReceivedMessage } from '../protocol/bindings.js';
import { ATTRIBUTE_NAME_FORMATS, CLASS_MFA, CLASS_PASSWORD, samlId, STATUS } from '../protocol/saml-names.js';
import { errorResponse, successResponse } from '../protocol/saml-response.js';
import type { AssertionContent } from '../protocol/saml-response.js';
import { ReplayedRequest, storePendingRequest, takePendingRequest } from './saml-requests.js';
import type { PendingRequest } from './saml-requests.js';
import { nameIdFormatFor } from './name-id-policy.js';
import { recordSamlSession } from './saml-sessions.js';

/** What the browser is sent: on to the sign-in (or an SP), a response posted to the SP's ACS URL, an error page, or the signed-out page. */
export type SsoOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'post'; acsUrl: string; samlResponse: string; relayState: string | null }
  | { kind: 'error'; status: number; error: string; description: string }
  | { kind: 'signedOut' };

/** The session a SAML assertion may say it stands for: a response's SessionIndex is good as long as this. */
const SAML_SESSION_MS = 30 * 24 * 3600_000;

/**
 * Single sign-on of an organization's SAML IdP (docs/saml.md). An AuthnRequest is checked, stored (its ID single use),
 * and answered by an ordinary authorization of the application's hidden client (HiddenClientSignIn): the login UI,
 * second factor, session and organization rule are the OIDC ones. The code that authorization returns to the continue
 * URL is redeemed there, never at the token endpoint, and becomes the signed response posted to the registered ACS URL.
 */
@Injectable()
export class SamlSsoService {
  private readonly logger = new Logger('saml');

  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly keys: SamlKeysService,
    private readonly signIns: HiddenClientSignIn,
    private readonly pairwise: PairwiseSubjects,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** An AuthnRequest by either binding (SP-initiated). */
  async receive(orgId: string, message: ReceivedMessage): Promise<SsoOutcome> {
    if (!(await organizationExists(this.dataSource, orgId))) return notFound('organization');
    const now = new Date();
    let request: ReturnType<typeof readAuthnRequest>;
    let sp: SamlServiceProvider | undefined;
    let acsUrl: string;
    try {
      request = readAuthnRequest(message);
      sp = await samlServiceProvider(this.dataSource.manager, { orgId, entityId: request.fields.issuer });
      if (!sp) return badRequest(`no SAML application of this organization has the entity id ${request.fields.issuer}`);
      acsUrl = registeredAcs(request.fields, sp);
    } catch (error) {
      if (error instanceof XmlRefused) return badRequest(error.message);
      throw error;
    }
    const { ssoUrl } = idpEndpoints(this.config.publicUrl, orgId);
    try {
      const { fields } = checkAuthnRequest(message, request.root, sp, ssoUrl, acsUrl, now);
      if (fields.isPassive && fields.forceAuthn) throw new AuthnRequestRefused('ForceAuthn cannot be honoured passively', STATUS.noPassive);
      const nameIdFormat = nameIdFormatFor(sp.nameIdFormat, fields.nameIdFormat);
      if (!nameIdFormat) throw new AuthnRequestRefused(`this application does not give ${fields.nameIdFormat} NameIDs`, STATUS.invalidNameIdPolicy);
      return await this.signIn(
        orgId,
        sp,
        {
          appId: sp.appId,
          requestId: fields.id,
          acsUrl,
          relayState: message.relayState ?? null,
          forceAuthn: fields.forceAuthn,
          isPassive: fields.isPassive,
          requiresMfa: fields.requiresMfa,
          nameIdFormat,
        },
        now,
      );
    } catch (error) {
      if (error instanceof AuthnRequestRefused) return this.refuse(orgId, acsUrl, request.fields.id, error.status, error.message, message.relayState ?? null);
      if (error instanceof ReplayedRequest)
        return this.refuse(orgId, acsUrl, request.fields.id, STATUS.requestDenied, error.message, message.relayState ?? null);
      throw error;
    }
  }

  /**
   * IdP-initiated sign-in (`/init?sp=`), for applications that allow it. Its RelayState is only the application's
   * `idpInitiatedRelayState`, a page of the SP checked when it was configured (none when unset): a RelayState taken
   * from the query would make the SP an open redirect (docs/saml.md, "IdP-initiated sign-in").
   */
  async initiate(orgId: string, entityId: string): Promise<SsoOutcome> {
    const sp = entityId === '' ? undefined : await samlServiceProvider(this.dataSource.manager, { orgId, entityId });
    if (!sp) return notFound('SAML application');
    if (!sp.allowIdpInitiated)
      return { kind: 'error', status: 403, error: 'idp_initiated_not_allowed', description: 'this application does not allow IdP-initiated sign-in' };
    const now = new Date();
    return this.signIn(
      orgId,
      sp,
      {
        appId: sp.appId,
        requestId: null,
        acsUrl: sp.acsUrls[0]!,
        relayState: sp.idpInitiatedRelayState,
        forceAuthn: false,
        isPassive: false,
        requiresMfa: false,
        nameIdFormat: null,
      },
      now,
    );
  }

  /**
   * The hidden client's authorization came back (its redirect URI): the pending request of `state` is taken once, the
   * code redeemed (this sign-in's client, PKCE challenge and redirect URI, once), and the response built for its user.
   */
  async complete(orgId: string, query: Record<string, unknown>): Promise<SsoOutcome> {
    const now = new Date();
    const state = typeof query.state === 'string' ? query.state : '';
    const pending = state === '' ? undefined : await takePendingRequest(this.dataSource.manager, state, now);
    if (!pending) return badRequest('this sign-in has expired or was already answered; start again at the application');
    const sp = await samlServiceProvider(this.dataSource.manager, { orgId, appId: pending.appId });
    if (!sp) return notFound('SAML application');
    const answerError = (status: string, message: string) => this.refuse(orgId, pending.acsUrl, pending.requestId, status, message, pending.relayState);
    const signIn = await this.signIns.redeem(query, { clientId: sp.clientId, orgId, codeChallenge: pending.codeChallenge });
    if (signIn.kind === 'declined') {
      const passive = pending.isPassive && signIn.needsInteraction;
      return answerError(passive ? STATUS.noPassive : STATUS.authnFailed, passive ? 'the user is not signed in' : `sign-in did not complete (${signIn.error})`);
    }
    if (signIn.kind === 'notThisSignIn') return badRequest('the authorization code is not this sign-in’s');
    if (!signIn.user) return answerError(STATUS.requestDenied, 'the user cannot sign in to this application');
    if (pending.requiresMfa && !signIn.mfa) return answerError(STATUS.noAuthnContext, 'a second factor was asked for and not given');
    return this.respond(orgId, sp, pending, signIn.user, { mfa: signIn.mfa, authTime: signIn.authTime, sessionUid: signIn.sessionUid }, now);
  }

  private async signIn(orgId: string, sp: SamlServiceProvider, request: PendingRequest, now: Date): Promise<SsoOutcome> {
    const { handle, codeChallenge } = await storePendingRequest(this.dataSource.manager, request, now);
    // docs/saml.md: ForceAuthn signs in again, IsPassive shows no page, the REFEDS MFA context steps up.
    const location = this.signIns.authorizeUrl({
      clientId: sp.clientId,
      orgId,
      state: handle,
      codeChallenge,
      reauthenticate: request.forceAuthn,
      passive: request.isPassive,
      secondFactor: request.requiresMfa,
    });
    return { kind: 'redirect', location };
  }

  private async respond(
    orgId: string,
    sp: SamlServiceProvider,
    pending: PendingRequest,
    user: SignedInUser,
    auth: { mfa: boolean; authTime?: number; sessionUid: string },
    now: Date,
  ): Promise<SsoOutcome> {
    // Groups and roles cost a query each, so they are read only when an attribute maps them.
    const extra = (['groups', 'roles'] as const).filter((source) => sp.attributes.some((a) => a.from === source));
    const claims = await user.claims(['openid profile email', ...extra].join(' '));
    const format = pending.nameIdFormat ?? sp.nameIdFormat;
    const nameId = this.nameIdOf(format, sp, user, claims);
    if (!nameId)
      return this.refuse(
        orgId,
        pending.acsUrl,
        pending.requestId,
        STATUS.invalidNameIdPolicy,
        'the user has no verified e-mail address for an emailAddress NameID',
        pending.relayState,
      );
    const sessionIndex = samlId(randomBytes(20));
    const content: AssertionContent = {
      issuer: idpEndpoints(this.config.publicUrl, orgId).entityId,
      audience: sp.entityId,
      recipient: pending.acsUrl,
      inResponseTo: pending.requestId,
      nameId,
      sessionIndex,
      authnInstant: new Date((auth.authTime ?? Math.floor(now.getTime() / 1000)) * 1000),
      authnContextClassRef: auth.mfa ? CLASS_MFA : CLASS_PASSWORD,
      attributes: attributesOf(sp, claims),
    };
    const signer = await this.keys.signer(now);
    const xml = await successResponse(
      content,
      { signer, signAssertion: sp.signAssertion, signResponse: sp.signResponse, encryptTo: sp.encryptAssertion ? sp.spCertificate : null },
      now,
    );
    await this.uow.run(async (manager) => {
      await recordSamlSession(
        manager,
        {
          id: sessionIndex,
          appId: sp.appId,
          userId: user.id,
          sessionUid: auth.sessionUid,
          nameId: nameId.value,
          nameIdFormat: nameId.format,
          nameIdQualified: nameId.qualified,
        },
        now,
        SAML_SESSION_MS,
      );
      await this.events.push(manager, {
        type: 'user.saml.response.issued',
        aggregateType: 'user',
        aggregateId: user.id,
        resourceOwner: orgId,
        editorUserId: user.id,
        payload: { appId: sp.appId, entityId: sp.entityId, nameIdFormat: format, idpInitiated: pending.requestId === null, mfa: auth.mfa },
      });
    });
    return { kind: 'post', acsUrl: pending.acsUrl, samlResponse: Buffer.from(xml, 'utf8').toString('base64'), relayState: pending.relayState };
  }

  /**
   * The NameID of the format the request gets (docs/saml.md, "NameID"): persistent is pairwise per SP (SAML Core
   * §8.3.7), transient a fresh id per assertion (§8.3.8; recorded with the session, so a LogoutRequest naming it is
   * matched), emailAddress a verified address or none (then InvalidNameIDPolicy).
   */
  private nameIdOf(
    given: SamlNameIdFormat,
    sp: SamlServiceProvider,
    user: SignedInUser,
    claims: Record<string, unknown>,
  ): AssertionContent['nameId'] | undefined {
    const format = NAME_ID_FORMATS[given];
    switch (given) {
      case 'persistent':
        return { value: this.pairwise.of({ kind: 'saml-sp', entityId: sp.entityId }, user.id), format, qualified: true };
      case 'transient':
        return { value: samlId(randomBytes(20)), format, qualified: true };
      case 'emailAddress': {
        const email = verifiedEmail(claims);
        return email === undefined ? undefined : { value: email, format, qualified: false };
      }
      case 'unspecified':
        return { value: String(claims.preferred_username ?? user.id), format, qualified: false };
    }
  }

  /** A signed error response to a registered ACS URL (docs/saml.md): the SP shows its own page; nothing is asserted. */
  private async refuse(
    orgId: string,
    acsUrl: string,
    inResponseTo: string | null,
    status: string,
    message: string,
    relayState: string | null,
  ): Promise<SsoOutcome> {
    this.logger.log(`SAML request refused: ${message}`);
    const now = new Date();
    const xml = errorResponse(idpEndpoints(this.config.publicUrl, orgId).entityId, acsUrl, inResponseTo, status, message, await this.keys.signer(now), now);
    return { kind: 'post', acsUrl, samlResponse: Buffer.from(xml, 'utf8').toString('base64'), relayState };
  }
}

/**
 * The user's e-mail address only once it is verified: anyone can set an unverified one, even another user's, and an SP
 * that maps users by e-mail would hand that account over (docs/saml.md, "NameID").
 */
function verifiedEmail(claims: Record<string, unknown>): string | undefined {
  return claims.email_verified === true && typeof claims.email === 'string' && claims.email !== '' ? claims.email : undefined;
}

/** The application's attributes from the user's claims; an attribute without a value is left out. */
function attributesOf(sp: SamlServiceProvider, claims: Record<string, unknown>): AssertionContent['attributes'] {
  const sources: Record<string, unknown> = {
    userName: claims.preferred_username,
    email: verifiedEmail(claims),
    givenName: claims.given_name,
    familyName: claims.family_name,
    displayName: claims.name,
    groups: claims.groups,
    roles: claims.roles,
    userId: claims.sub,
  };
  return sp.attributes
    .map((mapping) => {
      const value = sources[mapping.from];
      const values = (Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value]).map(String);
      return { name: mapping.name, nameFormat: ATTRIBUTE_NAME_FORMATS[mapping.nameFormat ?? 'basic'], values };
    })
    .filter((attribute) => attribute.values.length > 0);
}

function badRequest(description: string): SsoOutcome {
  return { kind: 'error', status: 400, error: 'invalid_saml_request', description };
}

function notFound(what: string): SsoOutcome {
  return { kind: 'error', status: 404, error: 'not_found', description: `no such ${what}` };
}
