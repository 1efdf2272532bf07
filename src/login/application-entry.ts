import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../common/database/unit-of-work.js';
import { EventStore } from '../common/events/event-store.js';
import { ApplicationAccess } from '../users/project-access/application-access.service.js';
import type { BoundaryClient } from './organization-boundary.js';
import { resourceRefusing } from './resource-entry.js';
import { clientKindOf } from './client-kind.js';
import type { RestrictedApiRow } from '../users/queries/api-resources.js';

/** What the access check needs of a client (its registration metadata, see src/oidc/adapter/client.store.ts). */
export interface EntryClient extends BoundaryClient {
  /** oidc-provider's Client holds `client_name` as `clientName`. */
  clientName?: string;
  portcullis_app_id?: string;
  portcullis_project_id?: string | null;
  portcullis_access?: string;
  /** The application's start page (`homeUrl`), the way back from a refused sign-in. */
  portcullis_home_url?: string;
}

/** Where a refusal happened, as `user.app.access.denied` names it (docs/product-rules.md, "Application access"). */
export type EntryDoor = 'authorize' | 'saml_sso' | 'saml_idp_initiated' | 'device' | 'refresh' | 'token_exchange' | 'resource';

/**
 * Whether the client's application admits only users with a grant in its project. A machine user's client and an
 * application open to everyone ask nothing, so they cost no query; the access comes with the client's registration.
 */
export function restrictsEntry(client: EntryClient | undefined): client is EntryClient & { portcullis_project_id: string } {
  return clientKindOf(client) !== 'machine' && client?.portcullis_access === 'granted' && typeof client.portcullis_project_id === 'string';
}

/**
 * The one access check of every door (docs/product-rules.md, "Application access"): an application with
 * `access: "granted"` admits only users a grant of its project reaches, read on use from the committed grants, so a
 * removed grant shuts the authorization endpoint, SAML, the device flow, refresh, token exchange, introspection and
 * userinfo at once. The doors that refuse a sign-in or a token of the user record `user.app.access.denied`;
 * introspection and userinfo refuse silently.
 */
@Injectable()
export class ApplicationEntry {
  constructor(
    private readonly access: ApplicationAccess,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  /** Whether the user may enter the client's application (one indexed query, only for a `granted` application). */
  async admits(client: EntryClient | undefined, userId: string): Promise<boolean> {
    if (!restrictsEntry(client)) return true;
    return this.access.mayEnter({ projectId: client.portcullis_project_id, access: 'granted' }, userId);
  }

  /** Whether the user is refused at this door; a refusal is recorded with the door. */
  async refuses(client: EntryClient | undefined, user: { id: string; orgId: string }, door: EntryDoor): Promise<boolean> {
    if (await this.admits(client, user.id)) return false;
    await this.recordRefusal(client, user, door);
    return true;
  }

  /**
   * The API application with `access: "granted"` that the audience of a request or token names (its resource URI or
   * its project) and that does not admit the user, whichever client asks (resource-entry.ts); none when all admit.
   */
  refusingResource(audience: readonly string[], userId: string): Promise<RestrictedApiRow | undefined> {
    return resourceRefusing(this.uow.manager, this.access, audience, userId);
  }

  /** Whether the user is refused the audience's resources; a refusal is recorded with door `resource`, naming the API application. */
  async refusesResource(audience: readonly string[], user: { id: string; orgId: string }): Promise<boolean> {
    const api = await this.refusingResource(audience, user.id);
    if (!api) return false;
    await this.recordRefusal({ portcullis_app_id: api.id }, user, 'resource');
    return true;
  }

  /** Records `user.app.access.denied` for a refusal this door made. */
  async recordRefusal(client: Pick<EntryClient, 'portcullis_app_id'> | undefined, user: { id: string; orgId: string }, door: EntryDoor): Promise<void> {
    await this.uow.run((manager) =>
      this.events.push(manager, {
        type: 'user.app.access.denied',
        aggregateType: 'user',
        aggregateId: user.id,
        resourceOwner: user.orgId,
        editorUserId: user.id,
        payload: { appId: client?.portcullis_app_id ?? null, door },
      }),
    );
  }
}

/** The interaction policy's reason when the session's user may not enter the application (src/oidc/provider/interaction.policy.ts). */
export const APP_ACCESS_DENIED = 'app_access_denied';

/** The interaction policy's reason when the requested resource's API application does not admit the session's user. */
export const RESOURCE_ACCESS_DENIED = 'resource_access_denied';

/** How the SAML IdP starts the `state` of an IdP-initiated sign-in (src/saml/sso), so that a refusal names its door. */
export const IDP_INITIATED_STATE_PREFIX = 'idp-';

/** The door of a sign-in for this client: a SAML application's hidden client signs in for SAML SSO. */
export function signInDoor(client: EntryClient | undefined, interaction: { deviceCode?: string; params: Record<string, string | undefined> }): EntryDoor {
  if (interaction.deviceCode) return 'device';
  if (client?.portcullis_kind !== 'saml') return 'authorize';
  return interaction.params.state?.startsWith(IDP_INITIATED_STATE_PREFIX) ? 'saml_idp_initiated' : 'saml_sso';
}
