import { randomBytes } from 'node:crypto';
import { clientAddress } from '../../common/http/client-address.js';
import Provider, { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { DynamicRegistrationBounds } from '../../common/config/config.js';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import { registrationModesInUse } from '../../users/queries/registration-modes.js';
import { bindDynamicClient, registrationTokenOrganization } from './dynamic-clients.queries.js';
import { isUnboundAgent, organizationOfResources } from '../agent-organization.js';
import { refusedPastBound } from './registration-bounds.js';
import { AGENT_CLIENT_PREFIX, assertAgentClientMetadata, withoutOwnMetadata } from './registration-metadata.js';

/** The part of the login rate limiter registrations use (login-rate-limiter.ts). */
export interface RegistrationLimiter {
  reserveRegistration(ip: string): Promise<number | undefined>;
}

export interface DynamicRegistrationDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  events: EventStore;
  hasher: SecretHasher;
  limiter?: RegistrationLimiter;
  bounds: DynamicRegistrationBounds;
  /** The provider's OAuth error body (RFC 6749 §5.2), status and `Cache-Control: no-store`. */
  oauthError: (ctx: OidcContext, status: number, error: string, description?: string) => void;
}

/**
 * Where the registration gate leaves the organization a new registration is bound to (null: bound by its first code)
 * and the keyed hash of the initial access token it came with, whose use the registration takes.
 */
const REGISTRATION_ORG = Symbol('portcullis.registrationOrganization');

/** Who registers in this request, as the gate found it. */
export interface RegistrationOfRequest {
  orgId: string | null;
  tokenHash?: string;
}

/** What the client store writes a new registration with: what the gate found, if this request registers. */
export function registrationOrganizationOfRequest(): RegistrationOfRequest | undefined {
  const state = (Provider.ctx as OidcContext | undefined)?.state as Record<symbol, RegistrationOfRequest> | undefined;
  return state?.[REGISTRATION_ORG];
}

/**
 * oidc-provider's RFC 7591 registration and RFC 7592 management (docs/agents.md, "Dynamic registration"). The
 * initial access token is checked by the gate (registrationGate), which knows the organizations' settings;
 * the registration access token is oidc-provider's, stored as a keyed hash like every token
 * (oidc-payload.adapter.ts) and rotated at each update (RFC 7592 §2.2).
 */
export function dynamicRegistrationFeatures() {
  return {
    registration: {
      enabled: true,
      initialAccessToken: false,
      issueRegistrationAccessToken: true,
      // Called once the body is parsed and before the client is built: the place to refuse a registration early.
      idFactory: (ctx: OidcContext) => {
        const body = withoutOwnMetadata(ctx.oidc.body as Record<string, unknown>);
        assertAgentClientMetadata(body);
        // RFC 7591 §2 `scope` is replaced (§3.2.1 lets the server do so): what a registered agent may ask for is
        // decided by the resource it names (docs/agents.md, "Resources"), and MCP clients send the resource's own
        // scopes here, which oidc-provider would refuse as unknown to it.
        delete body.scope;
        return `${AGENT_CLIENT_PREFIX}${randomBytes(16).toString('base64url')}`;
      },
    },
    registrationManagement: { enabled: true, rotateRegistrationAccessToken: true },
  };
}

/**
 * Before a registration (RFC 7591 §3): the per-address rate limit, then who may register. With a bearer token it
 * must be a live initial access token of an organization whose `dynamicRegistration` is not `off`, and the client
 * is bound to it; without one, some organization must be `open`, and the client is bound by its first code.
 * The provider runs it on a POST to its registration endpoint only.
 */
export function registrationGate(deps: DynamicRegistrationDeps) {
  return async (ctx: OidcContext, next: () => Promise<void>): Promise<void> => {
    // The address the request came from: a forwarded header only from a trusted proxy (docs/operations.md).
    const retryAfter = await deps.limiter?.reserveRegistration(clientAddress(ctx.req));
    if (retryAfter !== undefined) {
      ctx.set('Retry-After', String(retryAfter));
      deps.oauthError(ctx, 429, 'temporarily_unavailable', 'too many registrations from this address; try again later');
      return;
    }
    const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
    let registration: RegistrationOfRequest = { orgId: null };
    if (bearer !== undefined) {
      const tokenHash = deps.hasher.hash(bearer);
      const found = await registrationTokenOrganization(deps.dataSource, tokenHash, Date.now());
      if (!found) return refuse(deps, ctx, USED_UP);
      registration = { orgId: found, tokenHash };
    } else if (!(await registrationModesInUse(deps.dataSource)).open) {
      return refuse(deps, ctx, 'an initial access token is required');
    }
    (ctx.state as Record<symbol, RegistrationOfRequest>)[REGISTRATION_ORG] = registration;
    await next();
  };
}

const USED_UP = 'the initial access token is unknown, expired, used up, or its organization takes no registrations';

/**
 * A registration whose token lost its last use to another registration meanwhile (addDynamicClient): the 401 the
 * gate gives a used-up token (RFC 6750 §3.1).
 */
export function registrationTokenUsedUp(): Error {
  return Object.assign(new errors.InvalidToken(), { error_description: USED_UP });
}

/** RFC 6750 §3.1: invalid_token with its challenge. */
function refuse(deps: DynamicRegistrationDeps, ctx: OidcContext, description: string): void {
  ctx.set('WWW-Authenticate', `Bearer error="invalid_token", error_description="${description}"`);
  deps.oauthError(ctx, 401, 'invalid_token', description);
}

/**
 * An openly registered client is bound to the organization of the resource of its first issued code (docs/agents.md,
 * "Dynamic registration"): when oidc-provider saves that code, before the client hears of it (the provider's
 * extension `bindAtFirstCodeSave` calls this with the code's client). For the device grant that is the device code's
 * approval (RFC 8628 §3.3). A code for another organization's resource once it is bound is refused with
 * invalid_target (RFC 8707 §2); one that would take the organization past its bound of registered clients with
 * access_denied (registration-bounds.ts).
 */
export async function bindAtFirstCode(deps: DynamicRegistrationDeps, client: unknown, code: { clientId: string; resource?: unknown }): Promise<void> {
  if (!isUnboundAgent(client)) return;
  const orgId = await organizationOfResources(deps.dataSource, code.resource);
  if (!orgId) throw new errors.InvalidTarget('a registered agent needs a resource of an organization that takes open registrations');
  const bound = await refusedPastBound(() => bindDynamicClient(deps.uow, code.clientId, orgId, deps.bounds, Date.now()));
  if (bound !== orgId) throw new errors.InvalidTarget('no such resource for this client');
}
