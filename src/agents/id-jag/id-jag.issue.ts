import { randomUUID } from 'node:crypto';
import { SignJWT, importJWK } from 'jose';
import { errors } from 'oidc-provider';
import type { OidcContext } from 'oidc-provider';
import { mayServe } from '../../login/client-kind.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import type { EventStore } from '../../common/events/event-store.js';
import type { IdJagIssuing } from '../provider-port.js';
import { ID_JAG_LIFETIME_S, ID_JAG_TOKEN_TYPE, ID_JAG_TYP } from './id-jag.services.js';
import type { IdJagServices } from './id-jag.services.js';

export interface IdJagIssueDeps {
  idJag: IdJagServices;
  uow: UnitOfWork;
  events: EventStore;
}

/** The token type of an OpenID Connect ID token (RFC 8693 §3). */
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

/**
 * Token exchange for an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant §4.3): the subject is an ID token
 * this instance issued to the requesting client, `audience` the issuer and `resource` the resource of one of the
 * client's organization's external resources, and the person must hold a grant in that resource's project
 * (docs/agents.md, "Enterprise-managed authorization"), and the client's own application must admit them. The ID-JAG
 * lives at most five minutes.
 */
export async function issueIdJag(ctx: OidcContext, grants: IdJagIssuing, deps: IdJagIssueDeps): Promise<void> {
  const p = ctx.oidc.params as Record<string, string | string[] | undefined>;
  if (p.subject_token_type !== ID_TOKEN_TYPE) throw new errors.InvalidRequest('an ID-JAG is issued for an id_token subject only');
  const audience = single(p.audience, 'audience');
  const resource = single(p.resource, 'resource');
  const client = ctx.oidc.client;
  const subject = await grants.idTokenSubject(client, String(p.subject_token ?? ''));
  const account = await grants.account(subject.userId);
  if (!account || !mayServe(client, account)) throw grants.invalidGrant(grants.subjectNotServed);
  // The requesting client's own application must still admit the person (docs/application-access.md): an ID token
  // outlives a removed grant, and this is token exchange with the user as subject, refused like the plain one.
  if (await grants.refuses(client, { id: account.accountId, orgId: account.orgId })) throw grants.invalidGrant(grants.subjectNotAdmitted);
  const target = await deps.idJag.externalResources.find(account.orgId, audience, resource);
  if (!target) throw new errors.InvalidTarget('no external resource of this organization has this audience (issuer) and resource');
  if (!(await deps.idJag.access.mayEnter({ projectId: target.projectId, access: 'granted' }, subject.userId))) {
    throw grants.invalidGrant('the user holds no grant in the project of this external resource');
  }
  const requested = typeof p.scope === 'string' ? [...new Set(p.scope.split(' ').filter(Boolean))] : target.scopes;
  const beyond = requested.filter((s) => !target.scopes.includes(s));
  if (beyond.length > 0) throw new errors.InvalidScope(`the scope ${beyond.join(' ')} is not a scope of this external resource`);
  const scope = requested.join(' ');
  const claims = (await account.claims('id_token', 'openid email')) as { email?: unknown; email_verified?: unknown };
  const key = grants.signingKey;
  if (!key) throw new Error('no signing key');
  const now = Math.floor(Date.now() / 1000);
  const jti = randomUUID();
  const jwt = await new SignJWT({
    client_id: target.clientIdAtIssuer,
    resource: target.resource,
    ...(scope ? { scope } : {}),
    ...(typeof claims.email === 'string' && claims.email ? { email: claims.email, email_verified: claims.email_verified === true } : {}),
    ...(subject.acr ? { acr: subject.acr } : {}),
  })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: ID_JAG_TYP })
    .setIssuer(grants.issuer)
    .setSubject(subject.userId)
    .setAudience(target.issuer)
    .setJti(jti)
    .setIssuedAt(now)
    .setExpirationTime(now + ID_JAG_LIFETIME_S)
    .sign(await importJWK(key as never, key.alg));
  await deps.uow.run((manager) =>
    deps.events.push(manager, {
      type: 'user.agent.grant.issued',
      aggregateType: 'user',
      aggregateId: subject.userId,
      resourceOwner: account.orgId,
      editorUserId: subject.userId,
      payload: { clientId: client.clientId, externalResourceId: target.id, audience: target.issuer, resource: target.resource, scope, jti },
    }),
  );
  ctx.body = { access_token: jwt, issued_token_type: ID_JAG_TOKEN_TYPE, token_type: 'N_A', expires_in: ID_JAG_LIFETIME_S, ...(scope ? { scope } : {}) };
}

function single(value: string | string[] | undefined, name: string): string {
  if (typeof value === 'string' && value !== '') return value;
  if (Array.isArray(value)) throw new errors.InvalidTarget(`an ID-JAG is issued for one ${name}`);
  throw new errors.InvalidRequest(`${name} is required for an ID-JAG`);
}
