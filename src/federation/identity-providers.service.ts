import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import type { JsonObject } from '../common/database/columns.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { OrgResources } from '../common/database/org-resources.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError, ErrorCode } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { absoluteUrlProblem, checkLaterTarget, readMetadataDocument } from '../common/net/configured-target.js';
import type { OutboundRules } from '../common/net/configured-target.js';
import { organizationExists } from '../users/queries/organizations.js';
import {
  claimedDomains,
  deleteIdp,
  hasIdentities,
  idpById,
  idpOfDomain,
  idpsOf,
  idpsWithDomains,
  insertIdp,
  updateIdp,
  updateIdpSettingsIf,
} from './federation.queries.js';
import type { IdpRow } from './federation.queries.js';
import {
  DEFAULT_CLAIMS,
  DEFAULT_SCOPES,
  DEFAULT_SUBJECT_CLAIM,
  invalid,
  issuerProblem,
  movedSecretProblem,
  NAME_ID_PERSISTENT,
  normalisedDomains,
  secretProblem,
  subjectClaimOf,
} from './idp-settings.js';
import type { AuthMethod, ClaimMapping, IdpType, LinkBy, MfaMode, OidcSettings, SamlSettings } from './idp-settings.js';
import { redirectOriginsOf } from '../users/queries/application-origins.js';
import { idpMetadataOf } from './saml/idp-metadata.js';
import { UpstreamUnreachable } from './upstream-oidc.js';
import { landingLocation, landingProblem } from './saml/idp-initiated-landing.js';
import type { IdpMetadata } from './saml/idp-metadata.js';
import { newSelfSignedCredentials } from '../common/crypto/self-signed-credentials.js';
import { samlEndpoints } from './saml/sp-endpoints.js';
import { OrgDomainsService } from './domains/org-domains.service.js';

/** What `POST …/idps` and `PATCH …/idps/{idpId}` carry (idps.dto.ts). */
export interface IdpInput {
  type?: IdpType;
  name?: string;
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  authMethod?: AuthMethod;
  scopes?: string[];
  subjectClaim?: string;
  acceptIdJag?: boolean;
  claims?: ClaimMapping;
  domains?: string[];
  link?: { by: LinkBy; from: string } | null;
  jit?: boolean;
  mfa?: MfaMode;
  metadataXml?: string;
  metadataUrl?: string;
  nameIdFormat?: string;
  attributes?: ClaimMapping;
  signAuthnRequests?: boolean;
  allowIdpInitiated?: boolean;
  idpInitiatedLanding?: string | null;
}

const OIDC_ONLY = ['issuer', 'clientId', 'clientSecret', 'authMethod', 'scopes', 'subjectClaim', 'acceptIdJag', 'claims'] as const;
const SAML_ONLY = ['metadataXml', 'metadataUrl', 'nameIdFormat', 'attributes', 'signAuthnRequests', 'allowIdpInitiated', 'idpInitiatedLanding'] as const;

/** An IdP as the API shows it: never a secret or a private key (docs/federation.md). */
export interface IdpView {
  id: string;
  type: IdpType;
  name: string;
  issuer?: string;
  clientId?: string;
  authMethod?: AuthMethod;
  scopes?: string[];
  hasClientSecret?: boolean;
  subjectClaim?: string;
  acceptIdJag?: boolean;
  claims?: ClaimMapping;
  entityId?: string;
  ssoUrl?: string;
  metadataUrl?: string | null;
  nameIdFormat?: string;
  attributes?: ClaimMapping;
  signAuthnRequests?: boolean;
  allowIdpInitiated?: boolean;
  idpInitiatedLanding?: string | null;
  sloUrl?: string | null;
  domains: string[];
  link: { by: LinkBy; from: string } | null;
  jit: boolean;
  mfa: MfaMode;
  callbackUrl?: string;
  spEntityId?: string;
  acsUrl?: string;
  spMetadataUrl?: string;
  /** False while the issuer's or metadata URL's host has not resolved (docs/federation.md, "Not reached yet"). */
  reached: boolean;
  createdAt: string;
  changedAt: string;
}

/** What `POST …/idps` answers: where the upstream sends the browser back (OIDC), or this SP's identity (SAML). */
export interface IdpCreated {
  id: string;
  callbackUrl?: string;
  spEntityId?: string;
  acsUrl?: string;
  spMetadataUrl?: string;
}

/**
 * An organization's upstream identity providers (docs/federation.md): created, read, changed and
 * removed by its ORG_OWNER, each change with its event (never the secret, which is kept encrypted). An IdP claims
 * only verified domains of its own organization, each by one IdP ("Organization domains"). Removing an IdP removes
 * the identities linked through it.
 */
@Injectable()
export class IdentityProvidersService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
    private readonly domains: OrgDomainsService,
    orgResources: OrgResources,
  ) {
    orgResources.register((manager, orgId, editorUserId) => this.removeOwnedBy(manager, orgId, editorUserId));
  }

  async create(editorUserId: string | null, orgId: string, input: IdpInput): Promise<IdpCreated> {
    await this.assertOrg(orgId);
    assertFieldsOf(input.type ?? 'oidc', input);
    const now = Date.now();
    const base = { id: newId(), orgId, name: input.name!.trim(), domains: normalisedDomains(input.domains), createdAt: now, changedAt: now };
    let row: IdpRow;
    let payload: JsonObject;
    if (input.type === 'saml') {
      const metadata = await this.metadataOf(input);
      const credentials = await newSelfSignedCredentials(`Portcullis SP ${base.name}`);
      const settings = samlSettings(input, undefined, metadata, credentials.certificatePem);
      await this.assertLanding(orgId, settings);
      row = { ...base, type: 'saml', settings: JSON.stringify(settings), clientSecret: null, spPrivateKey: this.encryptor.encrypt(credentials.privateKeyPem) };
      payload = samlPayload(row, settings);
    } else {
      const settings = this.oidcSettings(input, undefined);
      const problem = secretProblem(settings.authMethod, input.clientSecret !== undefined);
      if (problem) throw invalid('clientSecret', problem);
      if ((await checkLaterTarget(settings.issuer, 'issuer', this.outboundRules())) === 'unresolved') settings.unreached = true;
      row = {
        ...base,
        type: 'oidc',
        settings: JSON.stringify(settings),
        clientSecret: input.clientSecret === undefined ? null : this.encryptor.encrypt(input.clientSecret),
        spPrivateKey: null,
      };
      payload = publicPayload(row, settings);
    }
    await this.uow.run(async (manager) => {
      await this.domains.assertVerifiedOf(manager, orgId, row.domains);
      await this.assertDomainsFree(manager, row.domains, null);
      await insertIdp(manager, row);
      await this.events.push(manager, { type: 'org.idp.added', aggregateType: 'idp', aggregateId: row.id, resourceOwner: orgId, editorUserId, payload });
    });
    if (row.type === 'saml') {
      const { entityId, acsUrl, metadataUrl } = samlEndpoints(this.config.publicUrl, row.id);
      return { id: row.id, spEntityId: entityId, acsUrl, spMetadataUrl: metadataUrl };
    }
    return { id: row.id, callbackUrl: this.callbackUrl(row.id) };
  }

  async list(orgId: string): Promise<IdpView[]> {
    await this.assertOrg(orgId);
    return (await idpsOf(this.uow.manager, orgId)).map((row) => this.view(row));
  }

  async get(orgId: string, idpId: string): Promise<IdpView> {
    return this.view(await this.find(this.uow.manager, orgId, idpId));
  }

  async change(editorUserId: string | null, orgId: string, idpId: string, input: IdpInput): Promise<IdpView> {
    const before = await this.find(this.uow.manager, orgId, idpId);
    assertFieldsOf(before.type as IdpType, input);
    let settings: OidcSettings | SamlSettings;
    let clientSecret = before.clientSecret;
    if (before.type === 'saml') {
      const previous = JSON.parse(before.settings) as SamlSettings;
      const metadata = input.metadataXml !== undefined || input.metadataUrl !== undefined ? await this.metadataOf(input) : undefined;
      const saml = samlSettings(input, previous, metadata, previous.spCertificate);
      if (input.allowIdpInitiated !== undefined || input.idpInitiatedLanding !== undefined) await this.assertLanding(orgId, saml);
      settings = saml;
    } else {
      const previous = JSON.parse(before.settings) as OidcSettings;
      const oidc = this.oidcSettings(input, previous);
      const moved = movedSecretProblem(previous, oidc, input.clientSecret !== undefined);
      if (moved) throw invalid('clientSecret', moved);
      clientSecret = input.clientSecret === undefined ? before.clientSecret : this.encryptor.encrypt(input.clientSecret);
      // Moving to private_key_jwt drops the stored secret; moving away from it needs a new one.
      if (oidc.authMethod === 'private_key_jwt' && input.clientSecret === undefined) clientSecret = null;
      const problem = secretProblem(oidc.authMethod, clientSecret !== null);
      if (problem) throw invalid('clientSecret', problem);
      if (input.issuer === undefined) {
        if (previous.unreached) oidc.unreached = true;
      } else if ((await checkLaterTarget(oidc.issuer, 'issuer', this.outboundRules())) === 'unresolved') oidc.unreached = true;
      settings = oidc;
    }
    const row: IdpRow = {
      ...before,
      name: input.name?.trim() ?? before.name,
      settings: JSON.stringify(settings),
      clientSecret,
      domains: input.domains === undefined ? before.domains : normalisedDomains(input.domains),
      changedAt: Math.max(Date.now(), before.changedAt + 1),
    };
    await this.uow.run(async (manager) => {
      await this.find(manager, orgId, idpId);
      if (before.type === 'oidc') await this.assertSubjectKept(manager, before, settings as OidcSettings);
      // Claims kept from before verified domains existed are checked once they are sent again (docs/federation.md).
      if (input.domains !== undefined) await this.domains.assertVerifiedOf(manager, orgId, row.domains);
      await this.assertDomainsFree(manager, row.domains, idpId);
      await updateIdp(manager, row);
      const described = row.type === 'saml' ? samlPayload(row, settings as SamlSettings) : publicPayload(row, settings as OidcSettings);
      const payload = { ...described, ...(input.clientSecret !== undefined ? { clientSecretChanged: true } : {}) };
      await this.events.push(manager, { type: 'org.idp.changed', aggregateType: 'idp', aggregateId: idpId, resourceOwner: orgId, editorUserId, payload });
    });
    return this.view(row);
  }

  async remove(editorUserId: string | null, orgId: string, idpId: string): Promise<void> {
    await this.uow.run(async (manager) => {
      if (!(await deleteIdp(manager, orgId, idpId))) throw DomainError.notFound('identity provider');
      await this.events.push(manager, { type: 'org.idp.removed', aggregateType: 'idp', aggregateId: idpId, resourceOwner: orgId, editorUserId });
    });
  }

  /** The IdP of the organization, or 404. */
  async find(manager: EntityManager, orgId: string, idpId: string): Promise<IdpRow> {
    await this.assertOrg(orgId);
    const [row] = await idpsOf(manager, orgId, idpId);
    if (!row) throw DomainError.notFound('identity provider');
    return row;
  }

  /** For the login UI, which knows an IdP by its id alone (the callback path). */
  byId(idpId: string): Promise<IdpRow | undefined> {
    return idpById(this.uow.manager, idpId);
  }

  /** For the login UI's buttons: every IdP of the organization, oldest first. */
  ofOrganization(orgId: string): Promise<IdpRow[]> {
    return idpsOf(this.uow.manager, orgId);
  }

  /**
   * Every IdP that home-realm discovery may lead to, in any organization (what a first-party application's login
   * page may lead to): those claiming a domain their own organization verified.
   */
  async discoverable(): Promise<IdpRow[]> {
    const manager = this.uow.manager;
    const claimed = await idpsWithDomains(manager);
    const owned = await Promise.all(
      claimed.map(async (idp) => (await Promise.all(idp.domains.map((d) => this.domains.ownerOf(manager, d)))).includes(idp.orgId)),
    );
    return claimed.filter((_, i) => owned[i]);
  }

  /**
   * Home-realm discovery: the IdP for the domain of a typed login name (`name@domain`), if any. Only an IdP of the
   * organization that owns the domain as a verified domain: a domain never leads away from its organization.
   */
  async forLoginName(loginName: string): Promise<IdpRow | undefined> {
    const at = loginName.lastIndexOf('@');
    if (at <= 0) return undefined;
    const domain = loginName
      .slice(at + 1)
      .trim()
      .toLowerCase();
    const owner = await this.domains.ownerOf(this.uow.manager, domain);
    const idpId = owner === undefined ? undefined : await idpOfDomain(this.uow.manager, domain);
    const idp = idpId === undefined ? undefined : await this.byId(idpId);
    return idp?.orgId === owner ? idp : undefined;
  }

  private async removeOwnedBy(manager: EntityManager, orgId: string, editorUserId: string | null): Promise<void> {
    for (const { id } of await idpsOf(manager, orgId)) {
      if (await deleteIdp(manager, orgId, id)) {
        await this.events.push(manager, { type: 'org.idp.removed', aggregateType: 'idp', aggregateId: id, resourceOwner: orgId, editorUserId });
      }
    }
  }

  /** An IdP's SAML metadata, given inline or read from its URL under the outbound rules (docs/federation.md, "SAML"). */
  private async metadataOf(input: IdpInput): Promise<IdpMetadata | 'unresolved'> {
    if ((input.metadataXml === undefined) === (input.metadataUrl === undefined))
      throw invalid('metadataXml', 'exactly one of metadataXml and metadataUrl is required for a SAML IdP');
    if (input.metadataXml !== undefined) return idpMetadataOf(input.metadataXml);
    const url = input.metadataUrl!;
    const problem = absoluteUrlProblem(url);
    if (problem) throw invalid('metadataUrl', `metadataUrl ${problem}`);
    // A host that does not resolve yet: the metadata is read at the first sign-in or test (readyForSignIn).
    if ((await checkLaterTarget(url, 'metadataUrl', this.outboundRules())) === 'unresolved') return 'unresolved';
    return idpMetadataOf(await readMetadataDocument(url, 'metadataUrl', this.outboundRules()));
  }

  /**
   * The IdP as a sign-in needs it: a SAML IdP whose metadata URL did not resolve when it was set has its metadata
   * read now, under the outbound rules, and stored (event `org.idp.changed`, by no one). Throws
   * UpstreamUnreachable when it still cannot be read, and the 400 of idpMetadataOf for a document that is not one.
   */
  async readyForSignIn(idp: IdpRow): Promise<IdpRow> {
    if (idp.type !== 'saml') return idp;
    const before = JSON.parse(idp.settings) as SamlSettings;
    if (!before.unreached || before.metadataUrl === null) return idp;
    let document: string;
    try {
      document = await readMetadataDocument(before.metadataUrl, 'metadataUrl', this.outboundRules());
    } catch (error) {
      throw new UpstreamUnreachable(error instanceof Error ? error.message : String(error));
    }
    const { unreached: _read, ...rest } = before;
    const settings: SamlSettings = { ...rest, ...idpMetadataOf(document) };
    const row: IdpRow = { ...idp, settings: JSON.stringify(settings), changedAt: Math.max(Date.now(), idp.changedAt + 1) };
    await this.uow.run(async (manager) => {
      if (!(await updateIdpSettingsIf(manager, row, idp.changedAt))) return;
      const payload = { ...samlPayload(row, settings), metadataRead: true };
      await this.events.push(manager, {
        type: 'org.idp.changed',
        aggregateType: 'idp',
        aggregateId: idp.id,
        resourceOwner: idp.orgId,
        editorUserId: null,
        payload,
      });
    });
    return row;
  }

  /** An OIDC IdP whose issuer did not resolve when it was set has now been reached (its discovery answered). */
  async reached(idp: IdpRow): Promise<void> {
    if (idp.type !== 'oidc') return;
    const { unreached, ...settings } = JSON.parse(idp.settings) as OidcSettings;
    if (!unreached) return;
    // Not a change of its configuration: the same version, without the mark (nothing written if it changed meanwhile).
    await this.uow.run((manager) => updateIdpSettingsIf(manager, { ...idp, settings: JSON.stringify(settings) }, idp.changedAt));
  }

  /**
   * IdP-initiated sign-in needs a landing, and the landing must be a path or one of the organization's applications
   * (saml/idp-initiated-landing.ts); 400 naming `idpInitiatedLanding` otherwise.
   */
  private async assertLanding(orgId: string, settings: SamlSettings): Promise<void> {
    if (settings.idpInitiatedLanding !== null) {
      const problem = landingProblem(settings.idpInitiatedLanding, await redirectOriginsOf(this.uow.manager, orgId));
      if (problem) throw invalid('idpInitiatedLanding', problem);
    } else if (settings.allowIdpInitiated) {
      throw invalid('idpInitiatedLanding', 'idpInitiatedLanding is required when allowIdpInitiated is true');
    }
  }

  /** Where an IdP-initiated sign-in of this IdP lands now, or undefined when it may not (off, or the landing no longer allowed). */
  async idpInitiatedLanding(idp: IdpRow): Promise<string | undefined> {
    if (idp.type !== 'saml') return undefined;
    const settings = JSON.parse(idp.settings) as SamlSettings;
    if (!settings.allowIdpInitiated || !settings.idpInitiatedLanding) return undefined;
    if (landingProblem(settings.idpInitiatedLanding, await redirectOriginsOf(this.uow.manager, idp.orgId))) return undefined;
    return landingLocation(settings.idpInitiatedLanding, this.config.publicUrl);
  }

  private outboundRules(): OutboundRules {
    return { allowPrivateNetworks: this.config.outboundAllowPrivateNetworks, timeoutMs: this.config.idpTimeoutMs };
  }

  private oidcSettings(input: IdpInput, before: OidcSettings | undefined): OidcSettings {
    const issuer = input.issuer ?? before?.issuer;
    const clientId = input.clientId ?? before?.clientId;
    if (issuer === undefined) throw invalid('issuer', 'issuer is required for an OpenID Connect IdP');
    if (clientId === undefined) throw invalid('clientId', 'clientId is required for an OpenID Connect IdP');
    const problem = issuerProblem(issuer);
    if (problem) throw invalid('issuer', problem);
    const scopes = input.scopes ?? before?.scopes ?? DEFAULT_SCOPES;
    return {
      issuer,
      clientId,
      authMethod: input.authMethod ?? before?.authMethod ?? 'client_secret_basic',
      // `openid` makes it OpenID Connect (Core §3.1.2.1): always asked for, first.
      scopes: ['openid', ...scopes.filter((s) => s !== 'openid')],
      subjectClaim: input.subjectClaim ?? (before ? subjectClaimOf(before) : DEFAULT_SUBJECT_CLAIM),
      claims: input.claims ? { ...input.claims } : (before?.claims ?? DEFAULT_CLAIMS),
      link: input.link === undefined ? (before?.link ?? null) : input.link === null ? null : { by: input.link.by, from: input.link.from },
      jit: input.jit ?? before?.jit ?? false,
      mfa: input.mfa ?? before?.mfa ?? 'local',
      acceptIdJag: input.acceptIdJag ?? before?.acceptIdJag ?? false,
    };
  }

  /**
   * The subject claim keys the IdP's identities: a new one would leave every linked identity under a value the
   * upstream no longer sends as the subject, and could let another person's value match it (docs/federation.md).
   */
  private async assertSubjectKept(manager: EntityManager, before: IdpRow, after: OidcSettings): Promise<void> {
    const previous = subjectClaimOf(JSON.parse(before.settings) as OidcSettings);
    if (subjectClaimOf(after) === previous || !(await hasIdentities(manager, before.id))) return;
    const message = `subjectClaim cannot change from "${previous}" while identities are linked through this identity provider; unlink them first`;
    throw new DomainError(ErrorCode.Conflict, message, [{ field: 'subjectClaim', message }]);
  }

  private async assertOrg(orgId: string): Promise<void> {
    if (!(await organizationExists(this.dataSource, orgId))) throw DomainError.notFound('organization');
  }

  private async assertDomainsFree(manager: EntityManager, domains: string[], idpId: string | null): Promise<void> {
    const taken = await claimedDomains(manager, domains, idpId);
    if (taken.length > 0) throw DomainError.alreadyExists(`domains: ${taken.join(', ')} already lead to another identity provider`);
  }

  /**
   * The issuer's host must be public, and the issuer https, unless OUTBOUND_ALLOW_PRIVATE_NETWORKS (development and
   * tests; the one outbound check: outbound-address.ts).
   */

  private callbackUrl(idpId: string): string {
    return `${this.config.publicUrl}/ui/login/idp/${idpId}/callback`;
  }

  private view(row: IdpRow): IdpView {
    const common = {
      id: row.id,
      type: row.type as IdpType,
      name: row.name,
      domains: row.domains,
      createdAt: new Date(row.createdAt).toISOString(),
      changedAt: new Date(row.changedAt).toISOString(),
    };
    if (row.type === 'saml') {
      const settings = JSON.parse(row.settings) as SamlSettings;
      const endpoints = samlEndpoints(this.config.publicUrl, row.id);
      return {
        ...common,
        // Empty until a metadata URL that did not resolve is read.
        entityId: settings.entityId || undefined,
        ssoUrl: settings.ssoUrl || undefined,
        metadataUrl: settings.metadataUrl,
        nameIdFormat: settings.nameIdFormat,
        attributes: settings.attributes,
        signAuthnRequests: settings.signAuthnRequests,
        allowIdpInitiated: settings.allowIdpInitiated ?? false,
        idpInitiatedLanding: settings.idpInitiatedLanding ?? null,
        sloUrl: settings.sloUrl ?? null,
        link: settings.link,
        jit: settings.jit,
        mfa: settings.mfa,
        spEntityId: endpoints.entityId,
        acsUrl: endpoints.acsUrl,
        spMetadataUrl: endpoints.metadataUrl,
        reached: !settings.unreached,
      };
    }
    const settings = JSON.parse(row.settings) as OidcSettings;
    return {
      ...common,
      issuer: settings.issuer,
      clientId: settings.clientId,
      authMethod: settings.authMethod,
      hasClientSecret: row.clientSecret !== null,
      scopes: settings.scopes,
      subjectClaim: subjectClaimOf(settings),
      acceptIdJag: settings.acceptIdJag ?? false,
      claims: settings.claims,
      link: settings.link,
      jit: settings.jit,
      mfa: settings.mfa,
      callbackUrl: this.callbackUrl(row.id),
      reached: !settings.unreached,
    };
  }
}

/** A field of the other protocol is a mistake the caller should hear about, not a value silently dropped. */
function assertFieldsOf(type: IdpType, input: IdpInput): void {
  const foreign = (type === 'saml' ? OIDC_ONLY : SAML_ONLY).find((field) => input[field] !== undefined);
  if (foreign) throw invalid(foreign, `${foreign} is not a field of ${type === 'saml' ? 'a SAML' : 'an OpenID Connect'} identity provider`);
}

/** The settings of a SAML IdP from its metadata and the fields sent (docs/federation.md, "SAML"), over what it had. */
function samlSettings(
  input: IdpInput,
  before: SamlSettings | undefined,
  metadata: IdpMetadata | 'unresolved' | undefined,
  spCertificate: string,
): SamlSettings {
  const source = metadata === 'unresolved' ? NO_METADATA : (metadata ?? before);
  if (!source) throw invalid('metadataXml', 'exactly one of metadataXml and metadataUrl is required for a SAML IdP');
  const unreached = metadata === 'unresolved' || (metadata === undefined && before?.unreached === true);
  return {
    entityId: source.entityId,
    ssoUrl: source.ssoUrl,
    certificates: source.certificates,
    metadataUrl: metadata ? (input.metadataUrl ?? null) : (before?.metadataUrl ?? null),
    nameIdFormat: input.nameIdFormat ?? before?.nameIdFormat ?? NAME_ID_PERSISTENT,
    attributes: input.attributes ? { ...input.attributes } : (before?.attributes ?? {}),
    signAuthnRequests: input.signAuthnRequests ?? before?.signAuthnRequests ?? true,
    allowIdpInitiated: input.allowIdpInitiated ?? before?.allowIdpInitiated ?? false,
    idpInitiatedLanding: input.idpInitiatedLanding === undefined ? (before?.idpInitiatedLanding ?? null) : input.idpInitiatedLanding,
    sloUrl: metadata ? (source.sloUrl ?? null) : (before?.sloUrl ?? null),
    sloResponseUrl: metadata ? (source.sloResponseUrl ?? null) : (before?.sloResponseUrl ?? null),
    spCertificate,
    link: input.link === undefined ? (before?.link ?? null) : input.link === null ? null : { by: input.link.by, from: input.link.from },
    jit: input.jit ?? before?.jit ?? false,
    mfa: input.mfa ?? before?.mfa ?? 'local',
    ...(unreached ? { unreached: true as const } : {}),
  };
}

/** A SAML IdP's metadata before it could be read (its URL's host did not resolve). */
const NO_METADATA: IdpMetadata = { entityId: '', ssoUrl: '', certificates: [] };

/** What an event says about a SAML IdP: what it was configured with, not the certificates' bodies. */
function samlPayload(row: IdpRow, settings: SamlSettings): JsonObject {
  const { certificates: _certificates, spCertificate: _spCertificate, ...described } = settings;
  return JSON.parse(JSON.stringify({ type: row.type, name: row.name, ...described, domains: row.domains })) as JsonObject;
}

/** What an event says about an IdP: its settings and domains, never the secret. */
function publicPayload(row: IdpRow, settings: OidcSettings): JsonObject {
  return JSON.parse(JSON.stringify({ type: row.type, name: row.name, ...settings, domains: row.domains })) as JsonObject;
}
