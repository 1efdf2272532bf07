import assert from 'node:assert/strict';
import type { TestService } from '../../support/service.js';
import { unique } from '../../support/fixtures.js';
import { postForm } from './oidc-fixtures.js';

/** A client that registered itself: public, PKCE only, bound to an organization. */
export interface AgentClient {
  clientId: string;
  orgId: string;
  clientName: string;
}

/**
 * An agent client as a real one comes to be (docs/agents.md, "Dynamic registration"): the organization takes
 * registrations with an initial access token, the administrator issues one, and the agent registers itself with it
 * (RFC 7591), a public client redirecting to `redirectUri`. Its other login policy settings stay as they were.
 */
export async function registerAgent(svc: TestService, orgId: string, redirectUri: string, clientName = 'Test agent'): Promise<AgentClient> {
  const policyPath = `/management/v1/orgs/${orgId}/login-policy`;
  const policy = (await svc.api('GET', policyPath, { token: svc.adminToken })).body;
  const { mfa, passkeys, allowRegistration, passwordLogin, inviteOnProvision, requireVerifiedEmail, agentClients, agentClientHosts } = policy;
  const body = { mfa, passkeys, allowRegistration, passwordLogin, inviteOnProvision, requireVerifiedEmail, agentClients, agentClientHosts };
  const set = await svc.api('PUT', policyPath, { token: svc.adminToken, body: { ...body, dynamicRegistration: 'initialAccessToken' } });
  assert.equal(set.status, 200, set.text);
  const token = await svc.api('POST', `/management/v1/orgs/${orgId}/agent-registration-tokens`, { token: svc.adminToken, body: {} });
  assert.equal(token.status, 201, token.text);
  const registered = await svc.api('POST', '/oauth/v2/register', {
    token: token.body.token,
    body: {
      client_name: clientName,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    },
  });
  assert.equal(registered.status, 201, registered.text);
  return { clientId: registered.body.client_id, orgId, clientName };
}

/** A token request of the agent, which authenticates by its client_id alone (RFC 6749 §2.3, a public client). */
export function agentTokenRequest(svc: TestService, agent: { clientId: string }, form: Record<string, string>) {
  return postForm(svc, '/oauth/v2/token', { ...form, client_id: agent.clientId });
}

/**
 * An MCP server's resource for agents to ask for (docs/agents.md, "Resources"): an API application of the project with
 * a fresh `resourceUri` and the scope `files:read`; its resource URI.
 */
export async function createFilesResource(svc: TestService, project: { orgId: string; projectId: string }): Promise<string> {
  const resourceUri = `https://${unique('mcp')}.example/mcp`;
  const api = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/api`, {
    token: svc.adminToken,
    body: { name: unique('Files MCP'), authMethod: 'client_secret_basic', resourceUri, scopes: [{ name: 'files:read', description: 'Read your files' }] },
  });
  assert.equal(api.status, 201, api.text);
  return resourceUri;
}
