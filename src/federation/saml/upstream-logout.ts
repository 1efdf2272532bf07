import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Profile } from '@node-saml/node-saml';
import { BrowserSessionSteps } from '../../common/auth/browser-session-steps.js';
import type { SignedOutSession, StartedSession } from '../../common/auth/browser-session-steps.js';
import { USER_TOKENS } from '../../common/auth/user-tokens.js';
import type { UserTokens } from '../../common/auth/user-tokens.js';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { generateSecret } from '../../common/crypto/secret-hasher.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { EventStore } from '../../common/events/event-store.js';
import { parseXml, SAMLP } from '../../common/xml/saml-xml.js';
import type { IdpRow } from '../federation.queries.js';
import { IdentityProvidersService } from '../identity-providers.service.js';
import type { UpstreamSamlName } from '../upstream-oidc.js';
import { logoutRequestUse } from './logout-request-use.js';
import { samlEndpoints } from './sp-endpoints.js';
import { UpstreamSaml, samlSettingsOf } from './upstream-saml.js';
import { UpstreamSamlSessions } from './upstream-saml-sessions.js';

/** A logout message by HTTP-Redirect is a few KB; larger, encoded or inflated, is refused before node-saml reads it. */
const MAX_MESSAGE_BYTES = 64 * 1024;

/** What the SLO endpoint answers: on to a URL (the IdP's, or where a sign-out goes next), or a refusal (a page). */
export type LogoutOutcome = { kind: 'redirect'; location: string } | { kind: 'refused'; reason: string };

/**
 * Single logout with upstream SAML IdPs (docs/federation.md, "Single logout"; SAML Profiles §4.4), HTTP-Redirect
 * both ways, with node-saml:
 *
 * - a sign-out here of a session that signed in through an IdP with a SingleLogoutService sends the browser to it
 *   with a LogoutRequest signed with this SP's key for the IdP, naming the assertion's NameID and SessionIndex; its
 *   LogoutResponse (signed, from the IdP, answering that request) sends the browser on to where the sign-out went;
 * - a LogoutRequest from the IdP (signed by a certificate of its metadata, Issuer the IdP's entity id, Destination
 *   this endpoint, issued within the window of logout-request-use.ts, its ID not seen before) ends every session here that its NameID (and SessionIndex) signed in, each with its event, and
 *   is answered with a signed LogoutResponse. Anything else is refused and ends nothing.
 */
@Injectable()
export class UpstreamLogout {
  private readonly logger = new Logger('federation');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(USER_TOKENS) private readonly tokens: UserTokens,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly idps: IdentityProvidersService,
    private readonly saml: UpstreamSaml,
    private readonly sessions: UpstreamSamlSessions,
    steps: BrowserSessionSteps,
  ) {
    steps.onStart((started) => this.started(started));
    steps.onSignOut((ended, next) => this.signedOut(ended, next));
  }

  /** At an upstream SAML sign-in: its NameID and SessionIndex, if the IdP takes single logout. */
  async remember(idp: IdpRow, userId: string, interactionUid: string, name: UpstreamSamlName | undefined): Promise<void> {
    if (idp.type !== 'saml' || !name || !samlSettingsOf(idp).sloUrl) return;
    await this.sessions.remember(idp.id, userId, interactionUid, name);
  }

  private started(started: StartedSession): Promise<void> {
    return this.sessions.bind(started.interactionUid, started.userId, started.sessionUid);
  }

  /** A sign-out of a session that signed in upstream: first to the IdP with a LogoutRequest, then on to `next`. */
  private async signedOut(ended: SignedOutSession, next: string): Promise<string | undefined> {
    for (const session of await this.sessions.ofSession(ended.sessionUid)) {
      const idp = await this.idps.byId(session.idpId);
      const sloUrl = idp?.type === 'saml' ? samlSettingsOf(idp).sloUrl : undefined;
      // Only signed LogoutRequests are sent: without this SP's key for the IdP there is nothing to sign with.
      if (!idp || !sloUrl || idp.spPrivateKey === null || session.userId !== ended.userId) continue;
      const requestId = `_${randomBytes(20).toString('hex')}`;
      const relayState = generateSecret();
      const profile = { issuer: '', nameID: session.nameId, nameIDFormat: session.format, ...optional(session) } as Profile;
      try {
        const url = await this.saml.client(idp, { requestId, logoutUrl: sloUrl }).getLogoutUrlAsync(profile, relayState, {});
        await this.sessions.awaitLogout(session.id, requestId, relayState, next);
        return url;
      } catch (error) {
        // The session here has ended; a LogoutRequest that cannot be made must not turn the sign-out into an error.
        this.logger.warn(`identity provider ${idp.id}: no LogoutRequest sent: ${(error as Error).message}`);
      }
    }
    return undefined;
  }

  /** A message at this SP's SLO endpoint for the IdP: the raw query as received (its signature covers it as sent). */
  async receive(idp: IdpRow, rawQuery: string): Promise<LogoutOutcome> {
    let message: RedirectMessage;
    try {
      message = redirectMessage(rawQuery);
    } catch (error) {
      return { kind: 'refused', reason: (error as Error).message };
    }
    return message.name === 'SAMLRequest' ? this.logoutRequested(idp, rawQuery, message) : this.logoutAnswered(idp, rawQuery, message);
  }

  /** The IdP's LogoutRequest: its sessions here end, and a signed LogoutResponse goes back. */
  private async logoutRequested(idp: IdpRow, rawQuery: string, message: RedirectMessage): Promise<LogoutOutcome> {
    const settings = samlSettingsOf(idp);
    if (!settings.sloUrl) return { kind: 'refused', reason: 'the identity provider has no single logout endpoint' };
    let profile: Profile;
    try {
      const checked = await this.saml
        .client(idp, { requestId: undefined, logoutUrl: settings.sloResponseUrl ?? settings.sloUrl })
        .validateRedirectAsync(message.container, rawQuery);
      if (!checked.profile) throw new Error('not a LogoutRequest');
      profile = checked.profile;
      this.assertDestination(idp, message.root);
      // Only a verified request uses up its ID: a forged one naming someone's ID blocks nothing.
      const use = logoutRequestUse(message.root, Date.now());
      if (!(await this.saml.firstSight(idp, 'saml-logout-request', use.id, use.keepUntil))) throw new Error('the LogoutRequest was used before (replay)');
    } catch (error) {
      this.logger.warn(`identity provider ${idp.id}: LogoutRequest refused: ${(error as Error).message}`);
      return { kind: 'refused', reason: 'the logout request could not be verified' };
    }
    await this.uow.run(async (manager) => {
      const named = await this.sessions.named(manager, idp.id, profile.nameID, profile.sessionIndex);
      await this.sessions.remove(
        manager,
        named.map((s) => s.id),
      );
      for (const session of named) {
        if (!session.sessionUid || !(await this.tokens.endSession(manager, session.userId, session.sessionUid))) continue;
        await this.events.push(manager, {
          type: 'session.terminated',
          aggregateType: 'session',
          aggregateId: session.sessionUid,
          resourceOwner: idp.orgId,
          editorUserId: session.userId,
          payload: { userId: session.userId, reason: 'saml_logout', idpId: idp.id },
        });
      }
    });
    const answer = this.saml.client(idp, { requestId: undefined, logoutUrl: settings.sloResponseUrl ?? settings.sloUrl });
    return { kind: 'redirect', location: await answer.getLogoutResponseUrlAsync(profile, message.container.RelayState ?? '', {}, true) };
  }

  /** The IdP's LogoutResponse to a sign-out of ours: on to where the sign-out went. */
  private async logoutAnswered(idp: IdpRow, rawQuery: string, message: RedirectMessage): Promise<LogoutOutcome> {
    const awaited = message.container.RelayState ? await this.sessions.takeAwaited(idp.id, message.container.RelayState) : undefined;
    if (!awaited?.logoutRequestId || !awaited.afterLogout) return { kind: 'refused', reason: 'no sign-out here awaits this answer' };
    try {
      const settings = samlSettingsOf(idp);
      await this.saml.client(idp, { requestId: awaited.logoutRequestId, logoutUrl: settings.sloUrl ?? '' }).validateRedirectAsync(message.container, rawQuery);
      if (message.root.getAttribute('InResponseTo') !== awaited.logoutRequestId) throw new Error('the answer is to another request');
      this.assertDestination(idp, message.root);
    } catch (error) {
      // The session here ended already; the browser is told the IdP's side could not be confirmed.
      this.logger.warn(`identity provider ${idp.id}: LogoutResponse refused: ${(error as Error).message}`);
      return { kind: 'refused', reason: 'signed out here; the identity provider’s answer could not be verified' };
    }
    return { kind: 'redirect', location: awaited.afterLogout };
  }

  /** A signed message by HTTP-Redirect must name its Destination (SAML Bindings §3.4.5.2): this endpoint. */
  private assertDestination(idp: IdpRow, root: Element): void {
    if (root.getAttribute('Destination') !== samlEndpoints(this.config.publicUrl, idp.id).sloUrl) throw new Error('the message is for another destination');
  }
}

interface RedirectMessage {
  name: 'SAMLRequest' | 'SAMLResponse';
  container: { SAMLRequest?: string; SAMLResponse?: string; RelayState?: string; SigAlg: string; Signature: string };
  root: Element;
}

/**
 * HTTP-Redirect (SAML Bindings §3.4.4): each parameter once, a signature required (node-saml accepts an unsigned
 * message), the message at most 64 KB inflated, parsed without DTDs, and of the protocol's namespace.
 */
function redirectMessage(rawQuery: string): RedirectMessage {
  if (rawQuery.length > MAX_MESSAGE_BYTES) throw new Error('the message is too large');
  const params = new Map<string, string>();
  for (const piece of rawQuery.split('&')) {
    const at = piece.indexOf('=');
    const key = at < 0 ? piece : piece.slice(0, at);
    if (params.has(key)) throw new Error(`${key} is given twice`);
    params.set(key, decodeURIComponent((at < 0 ? '' : piece.slice(at + 1)).replace(/\+/g, ' ')));
  }
  const name = params.has('SAMLRequest') ? 'SAMLRequest' : params.has('SAMLResponse') ? 'SAMLResponse' : undefined;
  if (!name || (params.has('SAMLRequest') && params.has('SAMLResponse'))) throw new Error('no SAMLRequest or SAMLResponse');
  const sigAlg = params.get('SigAlg');
  const signature = params.get('Signature');
  if (!sigAlg || !signature) throw new Error('the message is not signed');
  let xml: string;
  try {
    xml = inflateRawSync(Buffer.from(params.get(name)!, 'base64'), { maxOutputLength: MAX_MESSAGE_BYTES }).toString('utf8');
  } catch {
    throw new Error(`${name} is not DEFLATE-encoded base64 of at most ${MAX_MESSAGE_BYTES} bytes`);
  }
  const root = parseXml(xml).documentElement;
  const expected = name === 'SAMLRequest' ? 'LogoutRequest' : 'LogoutResponse';
  if (root.namespaceURI !== SAMLP || root.localName !== expected) throw new Error(`not a ${expected}`);
  const relayState = params.get('RelayState');
  return {
    name,
    container: { [name]: params.get(name)!, ...(relayState !== undefined ? { RelayState: relayState } : {}), SigAlg: sigAlg, Signature: signature },
    root,
  };
}

function optional(name: UpstreamSamlName): Partial<Profile> {
  return {
    ...(name.nameQualifier ? { nameQualifier: name.nameQualifier } : {}),
    ...(name.spNameQualifier ? { spNameQualifier: name.spNameQualifier } : {}),
    ...(name.sessionIndex ? { sessionIndex: name.sessionIndex } : {}),
  };
}
