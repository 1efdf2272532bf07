import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../common/config/config.token.js';
import type { AppConfig } from '../../common/config/config.js';
import { OrgResources } from '../../common/database/org-resources.js';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { isUniqueViolation } from '../../common/database/unique-violation.js';
import { DomainError, ErrorCode } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { organizationOfPrimaryDomain, primaryDomainOf } from '../../users/queries/organizations.js';
import { domainName } from './domain-name.js';
import { DomainVerification } from './domain-verification.js';
import type { DomainChallenge, ProofMethod } from './domain-verification.js';
import { deleteOrgDomain, deleteOrgDomainsOf, idpsClaiming, insertOrgDomain, markOrgDomainVerified, orgDomain, orgDomainsOf } from './org-domains.queries.js';

/** A domain as the API shows it; an unverified one with where its challenge goes. */
export interface OrgDomainView {
  domain: string;
  verified: boolean;
  primary: boolean;
  verification?: DomainChallenge;
}

/** Who asks to verify: an instance owner may vouch for a domain without its challenge. */
export type Verifier = { userId: string | null; vouches: boolean };

/**
 * An organization's domains (docs/federation.md, "Organization domains"): its primary domain, verified by
 * construction, and the domains its ORG_OWNER adds, each unique in the instance and verified by a DNS TXT record
 * or an HTTPS file (domain-verification.ts). Only a verified domain may lead to an IdP of the organization, and
 * only to its own IdPs: otherwise any organization owner could send another organization's people to an upstream
 * of their choosing by naming that organization's domain.
 */
@Injectable()
export class OrgDomainsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
    private readonly verification: DomainVerification,
    orgResources: OrgResources,
  ) {
    orgResources.register((manager, orgId) => deleteOrgDomainsOf(manager, orgId));
  }

  async add(editorUserId: string | null, orgId: string, typed: string): Promise<OrgDomainView> {
    const domain = domainName(typed, 'domain');
    const instance = this.config.instanceDomain;
    if (domain === instance || domain.endsWith(`.${instance}`)) {
      throw DomainError.invalidField('domain', `domain: names under ${instance} are the organizations' primary domains; add a domain of your own`);
    }
    await this.primaryOf(orgId);
    const row = { domain, orgId, challenge: randomBytes(32).toString('base64url'), createdAt: Date.now(), verifiedAt: null };
    try {
      await this.uow.run(async (manager) => {
        if ((await organizationOfPrimaryDomain(manager, domain)) !== undefined || (await orgDomain(manager, domain)) !== undefined) throw taken(domain);
        await insertOrgDomain(manager, row);
        await this.events.push(manager, {
          type: 'org.domain.added',
          aggregateType: 'org',
          aggregateId: orgId,
          resourceOwner: orgId,
          editorUserId,
          payload: { domain },
        });
      });
    } catch (error) {
      // Two organizations adding it at once: the primary key decides.
      if (isUniqueViolation(error)) throw taken(domain);
      throw error;
    }
    return { domain, verified: false, primary: false, verification: this.verification.challengeOf(domain, row.challenge) };
  }

  /** The primary domain first, then the added ones by name. */
  async list(orgId: string): Promise<OrgDomainView[]> {
    const primary = await this.primaryOf(orgId);
    const added = (await orgDomainsOf(this.uow.manager, orgId)).map((row) => ({
      domain: row.domain,
      verified: row.verifiedAt !== null,
      primary: false,
      ...(row.verifiedAt === null ? { verification: this.verification.challengeOf(row.domain, row.challenge) } : {}),
    }));
    return [{ domain: primary, verified: true, primary: true }, ...added];
  }

  /**
   * Marks the domain verified when its challenge is found, or at once for an instance owner (an instance whose
   * domains no public DNS knows). 409 when the challenge is not found; a verified domain answers as it is.
   */
  async verify(verifier: Verifier, orgId: string, typed: string): Promise<{ domain: string; verified: true }> {
    const domain = domainName(typed, 'domain');
    if ((await this.primaryOf(orgId)) === domain) return { domain, verified: true };
    const row = await orgDomain(this.uow.manager, domain);
    if (!row || row.orgId !== orgId) throw DomainError.notFound('domain');
    if (row.verifiedAt !== null) return { domain, verified: true };
    let method: ProofMethod | 'instance_owner';
    if (verifier.vouches) method = 'instance_owner';
    else {
      const found = await this.verification.proof(domain, row.challenge);
      if (!found)
        throw new DomainError(
          ErrorCode.Conflict,
          `the challenge of ${domain} was found neither in the TXT record ${this.verification.challengeOf(domain, row.challenge).dnsTxtName} nor at the HTTPS file; publish it and verify again`,
        );
      method = found;
    }
    await this.uow.run(async (manager) => {
      const now = await orgDomain(manager, domain);
      if (!now || now.orgId !== orgId) throw DomainError.notFound('domain');
      if (now.verifiedAt !== null) return;
      await markOrgDomainVerified(manager, domain, orgId, Date.now());
      await this.events.push(manager, {
        type: 'org.domain.verified',
        aggregateType: 'org',
        aggregateId: orgId,
        resourceOwner: orgId,
        editorUserId: verifier.userId,
        payload: { domain, method },
      });
    });
    return { domain, verified: true };
  }

  /** Removes an added domain; never the primary one, nor one an IdP of the organization still claims (409). */
  async remove(editorUserId: string | null, orgId: string, typed: string): Promise<void> {
    const domain = domainName(typed, 'domain');
    if ((await this.primaryOf(orgId)) === domain)
      throw new DomainError(ErrorCode.Conflict, 'the primary domain cannot be removed: the login names of the organization end in it');
    await this.uow.run(async (manager) => {
      const row = await orgDomain(manager, domain);
      if (!row || row.orgId !== orgId) throw DomainError.notFound('domain');
      const claiming = await idpsClaiming(manager, orgId, domain);
      if (claiming.length > 0)
        throw new DomainError(ErrorCode.Conflict, `identity providers ${claiming.join(', ')} still claim ${domain}; remove it from their domains first`);
      await deleteOrgDomain(manager, domain, orgId);
      await this.events.push(manager, {
        type: 'org.domain.removed',
        aggregateType: 'org',
        aggregateId: orgId,
        resourceOwner: orgId,
        editorUserId,
        payload: { domain },
      });
    });
  }

  /** The organization that owns the domain as a verified domain (its primary one, or one it proved), if any. */
  async ownerOf(manager: EntityManager, domain: string): Promise<string | undefined> {
    const primaryOf = await organizationOfPrimaryDomain(manager, domain);
    if (primaryOf !== undefined) return primaryOf;
    const row = await orgDomain(manager, domain);
    return row && row.verifiedAt !== null ? row.orgId : undefined;
  }

  /** 400 naming `domains` unless each is a verified domain of the organization (what its IdPs may claim). */
  async assertVerifiedOf(manager: EntityManager, orgId: string, domains: readonly string[]): Promise<void> {
    for (const domain of domains) {
      if ((await this.ownerOf(manager, domain)) !== orgId) {
        throw DomainError.invalidField(
          'domains',
          `domains: ${domain} is not a verified domain of this organization; add it under …/orgs/${orgId}/domains and verify it first`,
        );
      }
    }
  }

  private async primaryOf(orgId: string): Promise<string> {
    const primary = await primaryDomainOf(this.uow.manager, orgId);
    if (primary === undefined) throw DomainError.notFound('organization');
    return primary;
  }
}

function taken(domain: string): DomainError {
  return DomainError.alreadyExists(`domain: ${domain} is already a domain of an organization of this instance`);
}
