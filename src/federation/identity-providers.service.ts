import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../common/config/config.token.js';
import type { AppConfig } from '../common/config/config.js';
import type { JsonObject } from '../common/database/columns.js';
import { Encryptor } from '../common/crypto/encryptor.js';
import { OrgResources } from '../common/database/org-resources.js';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { DomainError } from '../common/errors/domain-error.js';
import { EventStore } from '../common/events/event-store.js';
import { newId } from '../common/ids.js';
import { hostOf, nonPublicAddressesOf } from '../common/net/outbound-address.js';
import { organizationExists } from '../users/queries/organizations.js';
import { claimedDomains, deleteIdp, idpById, idpOfDomain, idpsOf, idpsWithDomains, insertIdp, updateIdp } from './federation.queries.js';
import type { IdpRow } from './federation.queries.js';
import { DEFAULT_CLAIMS, DEFAULT_SCOPES, invalid, issuerProblem, normalisedDomains, secretProblem } from './idp-settings.js';
import type { AuthMethod, ClaimMapping, IdpType, LinkBy, MfaMode, OidcSettings } from './idp-settings.js';

/** What `POST …/idps` and `PATCH …/idps/{idpId}` carry (idps.dto.ts). */
export interface IdpInput {
  type?: IdpType;
  name?: string;
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
  authMethod?: AuthMethod;
  scopes?: string[];
  claims?: ClaimMapping;
  domains?: string[];
  link?: { by: LinkBy; from: string } | null;
  jit?: boolean;
  mfa?: MfaMode;
}

/** An IdP as the API shows it: never the secret (DESIGN §14). */
export interface IdpView extends Omit<OidcSettings, 'issuer' | 'clientId' | 'authMethod' | 'scopes'> {
  id: string;
  type: IdpType;
  name: string;
  issuer?: string;
  clientId?: string;
  authMethod?: AuthMethod;
  scopes?: string[];
  hasClientSecret?: boolean;
  domains: string[];
  callbackUrl?: string;
  createdAt: string;
  changedAt: string;
}

/**
 * An organization's upstream identity providers (DESIGN §14; docs/federation.md): created, read, changed and
 * removed by its ORG_OWNER, each change with its event (never the secret, which is kept encrypted). Domains are
 * claimed by one IdP in the whole instance. Removing an IdP removes the identities linked through it.
 */
@Injectable()
export class IdentityProvidersService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly encryptor: Encryptor,
    orgResources: OrgResources,
  ) {
    orgResources.register((manager, orgId, editorUserId) => this.removeOwnedBy(manager, orgId, editorUserId));
  }

  async create(editorUserId: string | null, orgId: string, input: IdpInput): Promise<{ id: string; callbackUrl?: string }> {
    if (input.type === 'saml') {
      throw invalid('type', 'type: SAML identity providers are not available yet; this instance brokers to OpenID Connect providers');
    }
    await this.assertOrg(orgId);
    const settings = this.oidcSettings(input, undefined);
    const problem = secretProblem(settings.authMethod, input.clientSecret !== undefined);
    if (problem) throw invalid('clientSecret', problem);
    await this.assertReachable(settings.issuer);
    const now = Date.now();
    const row: IdpRow = {
      id: newId(),
      orgId,
      type: 'oidc',
      name: input.name!.trim(),
      settings: JSON.stringify(settings),
      clientSecret: input.clientSecret === undefined ? null : this.encryptor.encrypt(input.clientSecret),
      domains: normalisedDomains(input.domains),
      createdAt: now,
      changedAt: now,
    };
    await this.uow.run(async (manager) => {
      await this.assertDomainsFree(manager, row.domains, null);
      await insertIdp(manager, row);
      await this.events.push(manager, { type: 'org.idp.added', aggregateType: 'idp', aggregateId: row.id, resourceOwner: orgId, editorUserId, payload: publicPayload(row, settings) });
    });
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
    const settings = this.oidcSettings(input, JSON.parse(before.settings) as OidcSettings);
    let clientSecret = input.clientSecret === undefined ? before.clientSecret : this.encryptor.encrypt(input.clientSecret);
    // Moving to private_key_jwt drops the stored secret; moving away from it needs a new one.
    if (settings.authMethod === 'private_key_jwt' && input.clientSecret === undefined) clientSecret = null;
    const problem = secretProblem(settings.authMethod, clientSecret !== null);
    if (problem) throw invalid('clientSecret', problem);
    if (input.issuer !== undefined) await this.assertReachable(settings.issuer);
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
      await this.assertDomainsFree(manager, row.domains, idpId);
      await updateIdp(manager, row);
      const payload = { ...publicPayload(row, settings), ...(input.clientSecret !== undefined ? { clientSecretChanged: true } : {}) };
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

  /** Every IdP that claims a domain, in any organization (what a first-party application's login page may lead to). */
  discoverable(): Promise<IdpRow[]> {
    return idpsWithDomains(this.uow.manager);
  }

  /** Home-realm discovery: the IdP that claims the domain of a typed login name (`name@domain`), if any. */
  async forLoginName(loginName: string): Promise<IdpRow | undefined> {
    const at = loginName.lastIndexOf('@');
    if (at <= 0) return undefined;
    const idpId = await idpOfDomain(this.uow.manager, loginName.slice(at + 1).trim().toLowerCase());
    return idpId === undefined ? undefined : this.byId(idpId);
  }

  private async removeOwnedBy(manager: EntityManager, orgId: string, editorUserId: string | null): Promise<void> {
    for (const { id } of await idpsOf(manager, orgId)) {
      if (await deleteIdp(manager, orgId, id)) {
        await this.events.push(manager, { type: 'org.idp.removed', aggregateType: 'idp', aggregateId: id, resourceOwner: orgId, editorUserId });
      }
    }
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
      claims: input.claims ? { ...input.claims } : (before?.claims ?? DEFAULT_CLAIMS),
      link: input.link === undefined ? (before?.link ?? null) : input.link === null ? null : { by: input.link.by, from: input.link.from },
      jit: input.jit ?? before?.jit ?? false,
      mfa: input.mfa ?? before?.mfa ?? 'local',
    };
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
  private async assertReachable(issuer: string): Promise<void> {
    if (this.config.outboundAllowPrivateNetworks) return;
    const url = new URL(issuer);
    if (url.protocol !== 'https:') throw invalid('issuer', 'issuer must be an absolute https URL (plain http only with OUTBOUND_ALLOW_PRIVATE_NETWORKS=true, for development)');
    const host = hostOf(url);
    let refused: string[];
    try {
      refused = await nonPublicAddressesOf(host);
    } catch {
      throw invalid('issuer', `issuer: the host ${host} does not resolve`);
    }
    if (refused.length > 0) {
      throw invalid('issuer', `issuer: ${host} resolves to a non-public address (${refused.join(', ')}); such issuers need OUTBOUND_ALLOW_PRIVATE_NETWORKS=true`);
    }
  }

  private callbackUrl(idpId: string): string {
    return `${this.config.publicUrl}/ui/login/idp/${idpId}/callback`;
  }

  private view(row: IdpRow): IdpView {
    const settings = JSON.parse(row.settings) as OidcSettings;
    return {
      id: row.id,
      type: row.type as IdpType,
      name: row.name,
      issuer: settings.issuer,
      clientId: settings.clientId,
      authMethod: settings.authMethod,
      hasClientSecret: row.clientSecret !== null,
      scopes: settings.scopes,
      claims: settings.claims,
      domains: row.domains,
      link: settings.link,
      jit: settings.jit,
      mfa: settings.mfa,
      callbackUrl: this.callbackUrl(row.id),
      createdAt: new Date(row.createdAt).toISOString(),
      changedAt: new Date(row.changedAt).toISOString(),
    };
  }
}

/** What an event says about an IdP: its settings and domains, never the secret. */
function publicPayload(row: IdpRow, settings: OidcSettings): JsonObject {
  return JSON.parse(JSON.stringify({ type: row.type, name: row.name, ...settings, domains: row.domains })) as JsonObject;
}
