import assert from 'node:assert/strict';
import { createHuman, createProject } from './oidc-fixtures.js';
import type { OidcApp } from './oidc-fixtures.js';
import { countRows, searchEvents, unique } from '../../support/fixtures.js';
import type { SearchedEvent } from '../../support/fixtures.js';
import type { TestService } from '../../support/service.js';

/** What the dynamic registration tests share (docs/agents.md, "Dynamic registration"). */
export const REDIRECT = 'http://127.0.0.1:65531/callback';

type Project = { orgId: string; projectId: string; primaryDomain: string };
export interface Organization {
  project: Project;
  resourceUri: string;
  resource: OidcApp;
  loginName: string;
}

/** An organization with an MCP server (an API application with a resource URI) and a person who signs in. */
export async function organization(svc: TestService): Promise<Organization> {
  const project = await createProject(svc);
  const resourceUri = `https://${unique('mcp')}.example/mcp`;
  const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/api`, {
    token: svc.adminToken,
    body: { name: unique('mcp'), authMethod: 'client_secret_basic', resourceUri, scopes: [{ name: 'files:read', description: 'Read your files' }] },
  });
  assert.equal(res.status, 201, res.text);
  const user = await createHuman(svc, project.orgId);
  return { project, resourceUri, resource: res.body, loginName: `${user.userName}@${project.primaryDomain}` };
}

export async function setMode(svc: TestService, orgId: string, dynamicRegistration: string): Promise<void> {
  const res = await svc.api('PUT', `/management/v1/orgs/${orgId}/login-policy`, {
    token: svc.adminToken,
    body: { mfa: 'optional', passkeys: true, allowRegistration: true, dynamicRegistration },
  });
  assert.equal(res.status, 200, res.text);
}

export async function issueToken(svc: TestService, orgId: string, body: object = {}): Promise<string> {
  const res = await svc.api('POST', `/management/v1/orgs/${orgId}/agent-registration-tokens`, { token: svc.adminToken, body });
  assert.equal(res.status, 201, res.text);
  return res.body.token;
}

export const publicClient = (extra: object = {}) => ({
  client_name: 'Claude Code',
  redirect_uris: [REDIRECT],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  ...extra,
});

export function register(svc: TestService, metadata: object, token?: string) {
  return svc.api('POST', '/oauth/v2/register', { token, body: metadata });
}

/** What a registration answers (RFC 7591 §3.2.1, RFC 7592 §3). */
export interface Registered {
  client_id: string;
  registration_client_uri: string;
  registration_access_token: string;
}

export async function registered(svc: TestService, metadata: object, token?: string): Promise<Registered> {
  const res = await register(svc, metadata, token);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** RFC 7592 §2.1: reading its own registration with its registration access token. */
export function readOwn(svc: TestService, client: Registered) {
  return svc.api('GET', new URL(client.registration_client_uri).pathname, { token: client.registration_access_token });
}

/** Every `agent.client.removed` event of the clients. */
export async function removals(svc: TestService, clientIds: string[]): Promise<SearchedEvent[]> {
  const events = await searchEvents(svc, { event_types: ['agent.client.removed'], limit: 1000 });
  return events.filter((e) => clientIds.includes(e.aggregate.id));
}

/** What is left of the clients: their registrations, what was issued to them, the consents given to them. */
export async function leftOf(svc: TestService, clientIds: string[]) {
  const ids = `(${clientIds.map((id) => `'${id}'`).join(',')})`;
  return {
    registrations: await countRows(svc, `dynamic_clients WHERE client_id IN ${ids}`),
    issued: await countRows(svc, `oidc_payloads WHERE client_id IN ${ids}`),
    consents: await countRows(svc, `agent_consents WHERE client_id IN ${ids}`),
  };
}
