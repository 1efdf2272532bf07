import { Injectable } from '@nestjs/common';
import { createLocalJWKSet } from 'jose';
import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { accountRulesOf, FederatedAccounts } from './federated-accounts.service.js';
import type { FederationResult } from './federated-accounts.service.js';
import { idpsOf } from './federation.queries.js';
import type { IdpRow } from './federation.queries.js';
import { subjectClaimOf } from './idp-settings.js';
import type { OidcSettings } from './idp-settings.js';
import { UpstreamOidc } from './upstream-oidc.js';

/**
 * The upstream OIDC IdPs of an organization as issuers of ID-JAGs (docs/agents.md, "Enterprise-managed
 * authorization"): only those with `acceptIdJag`, their keys from their own `jwks_uri`, and who the asserted person
 * is by the IdP's own rules (an existing link, the link rule, JIT only where the IdP allows it).
 */
@Injectable()
export class IdJagIssuers {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly upstream: UpstreamOidc,
    private readonly accounts: FederatedAccounts,
  ) {}

  private readonly lookups = new WeakMap<object, JWTVerifyGetKey>();

  /** The organization's OIDC IdP whose issuer is exactly `iss` and which accepts ID-JAGs, if any. */
  async trusted(orgId: string, iss: string): Promise<IdpRow | undefined> {
    const idps = await idpsOf(this.uow.manager, orgId);
    return idps.find((idp) => {
      if (idp.type !== 'oidc') return false;
      const settings = JSON.parse(idp.settings) as OidcSettings;
      return settings.acceptIdJag === true && settings.issuer === iss;
    });
  }

  /**
   * The IdP's published signing keys (its discovery's `jwks_uri`), read again when they lack the key `kid` names, as
   * jose's key lookup. One lookup per key set the upstream keeps: it imports each key once, not on every redemption.
   */
  async verificationKeys(idp: IdpRow, kid: string | undefined): Promise<JWTVerifyGetKey> {
    const keys = await this.upstream.keySetWith(idp, kid);
    let lookup = this.lookups.get(keys);
    if (!lookup) {
      lookup = createLocalJWKSet(keys as JSONWebKeySet);
      this.lookups.set(keys, lookup);
    }
    return lookup;
  }

  /** Who the verified ID-JAG's subject is here; its claims stand in for the ID token's (the draft's `sub`, `email`). */
  async userOf(idp: IdpRow, claims: Record<string, unknown>): Promise<FederationResult> {
    const settings = JSON.parse(idp.settings) as OidcSettings;
    const subject = claims[subjectClaimOf(settings)];
    if (typeof subject !== 'string' || subject.length === 0 || subject.length > 255) return { ok: false, reason: 'subject_missing' };
    return this.accounts.resolve(idp, accountRulesOf(settings), { subject, claims, methods: [] });
  }
}
