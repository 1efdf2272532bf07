import assert from 'node:assert/strict';
import * as oidc from 'openid-client';
import { createCaller, createOrg, unique } from '../../support/fixtures.js';
import type { TestService } from '../../support/service.js';

export const PASSWORD = 'Correct-Horse-9';

export interface OidcAppInput {
  authMethod: 'client_secret_basic' | 'client_secret_post' | 'none' | 'private_key_jwt';
  responseTypes?: string[];
  grantTypes?: string[];
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  accessTokenType?: 'opaque' | 'jwt';
  idTokenUserinfoAssertion?: boolean;
  /** The settings of docs/oauth-profiles.md and any other create field, as the API names them. */
  settings?: Record<string, unknown>;
}

export interface OidcApp {
  appId: string;
  clientId: string;
  clientSecret?: string;
  projectId: string;
  orgId: string;
}

/** An organization with a project, as an administrator sets one up through the management API. */
export async function createProject(svc: TestService, orgId?: string): Promise<{ orgId: string; projectId: string; primaryDomain: string }> {
  const org = orgId ? { id: orgId, primaryDomain: '' } : await createOrg(svc);
  const res = await svc.api('POST', `/management/v1/orgs/${org.id}/projects`, { token: svc.adminToken, body: { name: unique('project') } });
  assert.equal(res.status, 201, res.text);
  return { orgId: org.id, projectId: res.body.id, primaryDomain: org.primaryDomain };
}

export async function createOidcApp(
  svc: TestService,
  project: { orgId: string; projectId: string },
  input: OidcAppInput,
  rpUrl = 'http://127.0.0.1:65530',
): Promise<OidcApp> {
  const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/oidc`, {
    token: svc.adminToken,
    body: {
      name: unique('app'),
      redirectUris: input.redirectUris ?? [`${rpUrl}/cb`],
      postLogoutRedirectUris: input.postLogoutRedirectUris ?? [`${rpUrl}/logged-out`],
      responseTypes: input.responseTypes ?? ['code'],
      grantTypes: input.grantTypes ?? ['authorization_code', 'refresh_token'],
      authMethod: input.authMethod,
      accessTokenType: input.accessTokenType ?? 'opaque',
      idTokenUserinfoAssertion: input.idTokenUserinfoAssertion ?? false,
      devMode: true,
      ...input.settings,
    },
  });
  assert.equal(res.status, 201, res.text);
  return { ...res.body, projectId: project.projectId, orgId: project.orgId };
}

export async function createApiApp(svc: TestService, project: { orgId: string; projectId: string }, authMethod = 'client_secret_basic'): Promise<OidcApp> {
  const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/api`, {
    token: svc.adminToken,
    body: { name: unique('api'), authMethod },
  });
  assert.equal(res.status, 201, res.text);
  return { ...res.body, projectId: project.projectId, orgId: project.orgId };
}

/** A private key for private_key_jwt (PKCS#1 PEM, RS256), as the management API hands it out. */
export async function createAppKey(svc: TestService, app: OidcApp): Promise<{ keyId: string; key: string }> {
  const res = await svc.api('POST', `/management/v1/orgs/${app.orgId}/projects/${app.projectId}/apps/${app.appId}/keys`, { token: svc.adminToken, body: {} });
  assert.equal(res.status, 201, res.text);
  return { keyId: res.body.keyId, key: res.body.keyDetails.key };
}

export async function createHuman(svc: TestService, orgId: string, password = PASSWORD): Promise<{ userId: string; userName: string }> {
  const userName = unique('user');
  const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
    token: svc.adminToken,
    body: { userName, profile: { firstName: 'Ada', lastName: 'Lovelace' }, email: { email: `${userName}@example.com`, isEmailVerified: true }, password },
  });
  assert.equal(res.status, 201, res.text);
  return { userId: res.body.userId, userName };
}

export async function createMachine(
  svc: TestService,
  orgId: string,
  accessTokenType: 'opaque' | 'jwt' = 'opaque',
): Promise<{ userId: string; clientId: string; clientSecret: string }> {
  const created = await svc.api('POST', `/management/v1/orgs/${orgId}/users/machine`, {
    token: svc.adminToken,
    body: { userName: unique('machine'), name: 'machine', accessTokenType },
  });
  assert.equal(created.status, 201, created.text);
  const secret = await svc.api('POST', `/management/v1/orgs/${orgId}/users/${created.body.userId}/secret`, { token: svc.adminToken, body: {} });
  assert.equal(secret.status, 201, secret.text);
  return { userId: created.body.userId, ...secret.body };
}

/** openid-client configuration from the service's discovery document (http allowed: tests run on loopback). */
export async function discover(
  svc: TestService,
  clientId: string,
  auth: oidc.ClientAuth,
  metadata: Partial<oidc.ClientMetadata> = {},
): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(svc.config.publicUrl), clientId, metadata, auth, { execute: [oidc.allowInsecureRequests] });
}

/** POSTs a form to a provider endpoint with Basic client authentication, returning status and JSON. */
export async function postForm(svc: TestService, path: string, form: Record<string, string>, basic?: { id: string; secret: string }) {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  const res = await fetch(new URL(path, svc.config.publicUrl), { method: 'POST', headers, body: new URLSearchParams(form) });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** An organization with an ORG_USER_MANAGER machine caller and a confidential OIDC application: where people sign in. */
export async function orgWithApp(svc: TestService): Promise<{ orgId: string; manager: { userId: string; token: string }; app: OidcApp }> {
  const orgId = (await createOrg(svc)).id;
  const manager = await createCaller(svc, orgId, { org: ['ORG_USER_MANAGER'] });
  return { orgId, manager, app: await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' }) };
}
