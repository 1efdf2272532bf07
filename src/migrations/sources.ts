import type { MigrationSource } from './api/migrations.dto.js';
import { planAuth0 } from './auth0/auth0.source.js';
import { planKeycloak } from './keycloak/keycloak.source.js';
import { planZitadel } from './zitadel/zitadel.source.js';
import { DocumentFault } from './migration-plan.js';
import type { MigrationPlan } from './migration-plan.js';

/** What a request carries besides the document: Auth0's hash export lines. */
export interface SourceExtras {
  passwordHashes?: unknown;
}

/**
 * A source's export read into a plan, checked whole first: a structural fault throws a DocumentFault naming its
 * path. The service calls it for each request, and `portcullis import` for each part before it sends any, so that a
 * fault in the last part writes nothing of the first.
 */
export function planDocument(source: MigrationSource, document: unknown, extras: SourceExtras = {}): MigrationPlan {
  switch (source) {
    case 'keycloak':
      if (extras.passwordHashes !== undefined) throw new DocumentFault('passwordHashes', 'is for auth0 exports only');
      return planKeycloak(document);
    case 'auth0':
      return planAuth0(document, extras.passwordHashes);
    case 'zitadel':
      if (extras.passwordHashes !== undefined) throw new DocumentFault('passwordHashes', 'is for auth0 exports only');
      return planZitadel(document);
  }
}
