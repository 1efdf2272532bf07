import { interactionPolicy } from 'oidc-provider';
import { ACR_MFA } from '../../login/authentication-methods.js';
import { mayServe } from '../../login/client-kind.js';
import { APP_ACCESS_DENIED, RESOURCE_ACCESS_DENIED, signInDoor } from '../../login/application-entry.js';
import type { ApplicationEntry, EntryClient } from '../../login/application-entry.js';
import type { BoundaryClient } from '../../login/organization-boundary.js';

interface PolicyContext {
  oidc: {
    session: { accountId?: string; acr?: string };
    account?: { accountId: string; orgId: string };
    client?: EntryClient;
    params: { acr_values?: unknown; resource?: unknown; scope?: unknown; state?: unknown };
    entities: { DeviceCode?: unknown };
  };
}

/**
 * oidc-provider's default prompts (login, consent) plus `select_account` (OIDC Core §3.1.2.1) and
 * `create` (OpenID Connect Prompt Create 1.0), which the login UI answers. Consent is asked only of agent clients
 * (self-registered ones) the person has not yet allowed what they ask (loadExistingGrant; docs/agents.md,
 * "Consent and connected agents"); an administrator's clients never ask.
 */
export function buildInteractionPolicy(
  loginPolicy: (orgId: string) => Promise<{ mfa: string }>,
  /** The client as the organization rule sees it in this request (an agent client takes its resource's organization). */
  servingClient: (ctx: never) => Promise<BoundaryClient | undefined>,
  entry: ApplicationEntry,
  /** What a token of this request would be good at (account/resource-audience.ts). */
  requestAudience: (ctx: never) => Promise<string[]>,
): unknown[] {
  const { Check, Prompt, base } = interactionPolicy;
  const policy = base();
  policy.add(new Prompt({ name: 'select_account', requestable: true }), 0);
  policy.add(new Prompt({ name: 'create', requestable: true }), 0);
  // A session whose user was since deactivated, locked or removed has no account (findAccount refuses
  // it): that is no session, so the login is asked again (login_required for prompt=none) instead of
  // the consent checks failing on the missing grant.
  const login = policy.get('login')!.checks;
  const noSession = login.findIndex((check: { reason: string }) => check.reason === 'no_session');
  login[noSession] = new Check(
    'no_session',
    'End-User authentication is required',
    'login_required',
    (ctx: PolicyContext) => !ctx.oidc.session.accountId || !ctx.oidc.account,
  );
  // The session's user belongs to another organization than the application: never a code for it
  // (SECURITY.md, "Sign-in stays inside the organization"). prompt=none answers access_denied; otherwise
  // the login page is shown, where only a user of the application's organization can sign in.
  login.splice(
    noSession + 1,
    0,
    new Check(
      'foreign_organization',
      'the signed-in user belongs to another organization',
      'access_denied',
      async (ctx: PolicyContext) => ctx.oidc.account !== undefined && !mayServe(await servingClient(ctx as never), ctx.oidc.account),
    ),
  );
  // docs/product-rules.md, "Application access": the session's user has no grant of an application that admits only
  // granted users. prompt=none answers access_denied; otherwise the login UI shows the refusal naming the application.
  login.splice(
    noSession + 2,
    0,
    new Check(APP_ACCESS_DENIED, 'the signed-in user has no access to this application', 'access_denied', async (ctx: PolicyContext) => {
      const { account, client, params, entities } = ctx.oidc;
      // A user of another organization is foreign_organization's to refuse, not this application's.
      if (!account || !mayServe(await servingClient(ctx as never), account)) return false;
      const interaction = {
        deviceCode: entities.DeviceCode ? 'device' : undefined,
        params: { state: typeof params.state === 'string' ? params.state : undefined },
      };
      return entry.refuses(client, { id: account.accountId, orgId: account.orgId }, signInDoor(client, interaction));
    }),
  );
  // docs/application-access.md, "Resources of a restricted API application": the resource (or project) the request
  // asks a token for belongs to an API application that does not admit the session's user, whatever the client.
  login.splice(
    noSession + 3,
    0,
    new Check(RESOURCE_ACCESS_DENIED, 'the signed-in user has no access to the requested resource', 'access_denied', async (ctx: PolicyContext) => {
      const { account } = ctx.oidc;
      if (!account || !mayServe(await servingClient(ctx as never), account)) return false;
      return entry.refusesResource(await requestAudience(ctx as never), { id: account.accountId, orgId: account.orgId });
    }),
  );

  // Consent: clients marked `portcullis_agent` (a Client ID Metadata Document's, docs/agents.md) are where the
  // consent prompt will ask the person; until it exists they go on after sign-in like first-party clients.
  // docs/product-rules.md, "Multi-factor sign-in": a session without a second factor is not enough when
  // the request asks for one (acr_values, step-up inside the SSO session) or the organization requires
  // one (also for sessions begun before the policy changed). The login UI then asks only the second
  // factor; prompt=none answers interaction_required. An organization with `mfa: off` never asks.
  login.push(
    new Check('second_factor', 'a second factor is required', 'interaction_required', async (ctx: PolicyContext) => {
      const { session, account, params } = ctx.oidc;
      if (!session.accountId || !account || session.acr === ACR_MFA) return false;
      const requested = String(params.acr_values ?? '')
        .split(' ')
        .includes(ACR_MFA);
      const { mfa } = await loginPolicy(account.orgId);
      return mfa !== 'off' && (requested || mfa === 'required');
    }),
  );
  return policy;
}
