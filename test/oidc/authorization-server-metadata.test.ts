import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as oidc from 'openid-client';
import { createMachine, createProject } from './support/oidc-fixtures.js';
import { unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';

async function getJson(svc: TestService, path: string) {
  const res = await fetch(new URL(path, svc.url));
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    cacheControl: res.headers.get('cache-control'),
    body: (await res.json()) as Record<string, any>,
  };
}

/** The endpoints both documents name (RFC 8414 §2, OIDC Discovery §3). */
const ENDPOINTS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'jwks_uri',
  'introspection_endpoint',
  'revocation_endpoint',
  'userinfo_endpoint',
  'end_session_endpoint',
  'pushed_authorization_request_endpoint',
  'device_authorization_endpoint',
];

/** docs/agents.md, "Metadata": RFC 8414 authorization server metadata, as MCP clients read it first. */
describe('authorization server metadata (RFC 8414)', () => {
  const svc = useService();

  it('answers at /.well-known/oauth-authorization-server with the required members and the discovery endpoints', async () => {
    const metadata = await getJson(svc, '/.well-known/oauth-authorization-server');
    const discovery = await getJson(svc, '/.well-known/openid-configuration');
    assert.equal(metadata.status, 200);
    assert.match(metadata.type ?? '', /^application\/json/);
    assert.equal(metadata.cacheControl, discovery.cacheControl, 'cached like discovery');
    // RFC 8414 §2: issuer, response_types_supported required; authorization and token endpoints for the code grant.
    assert.equal(metadata.body.issuer, svc.config.publicUrl, 'RFC 8414 §3.3: the issuer it is fetched for');
    assert.ok(Array.isArray(metadata.body.response_types_supported) && metadata.body.response_types_supported.includes('code'));
    for (const name of ENDPOINTS) assert.equal(metadata.body[name], discovery.body[name], name);
    assert.deepEqual(metadata.body.code_challenge_methods_supported, ['S256']);
    assert.ok(metadata.body.grant_types_supported.includes('authorization_code'));
    assert.ok(metadata.body.token_endpoint_auth_methods_supported.includes('none'));
    // No organization accepts agent clients (a new instance): neither member is present.
    assert.equal('client_id_metadata_document_supported' in metadata.body, false);
    assert.equal('registration_endpoint' in metadata.body, false);
  });

  // A client library no one here wrote, discovering by RFC 8414 alone (its `oauth2` algorithm), then asking a token for
  // an API application's resource and having that application introspect it (docs/agents.md, "Resources").
  it('openid-client discovers the server by RFC 8414 and gets and introspects a token for a resource', async () => {
    const project = await createProject(svc);
    const resourceUri = `https://${unique('mcp')}.example/mcp`;
    const api = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/api`, {
      token: svc.adminToken,
      body: { name: unique('mcp'), authMethod: 'client_secret_basic', resourceUri, scopes: [{ name: 'tools:call', description: 'Call tools' }] },
    });
    assert.equal(api.status, 201, api.text);
    const machine = await createMachine(svc, project.orgId);
    const options = { algorithm: 'oauth2' as const, execute: [oidc.allowInsecureRequests] };
    const issuer = new URL(svc.config.publicUrl);
    const asClient = await oidc.discovery(issuer, machine.clientId, {}, oidc.ClientSecretBasic(machine.clientSecret), options);
    assert.deepEqual(asClient.serverMetadata().code_challenge_methods_supported, ['S256']);
    const granted = await oidc.clientCredentialsGrant(asClient, { resource: resourceUri, scope: 'tools:call groups profile' });
    assert.equal(granted.scope, 'tools:call profile', 'groups is no scope of the resource');
    const asResource = await oidc.discovery(issuer, api.body.clientId, {}, oidc.ClientSecretBasic(api.body.clientSecret), options);
    const introspected = await oidc.tokenIntrospection(asResource, granted.access_token);
    assert.equal(introspected.active, true);
    assert.deepEqual(introspected.aud, [resourceUri]);
    assert.equal(introspected.scope, 'tools:call profile');
  });

  // Browser-based MCP clients read it from another origin, as they read discovery.
  it('is readable across origins (CORS), like discovery', async () => {
    const headers = { origin: 'https://agent.example' };
    const metadata = await fetch(new URL('/.well-known/oauth-authorization-server', svc.url), { headers });
    const discovery = await fetch(new URL('/.well-known/openid-configuration', svc.url), { headers });
    assert.equal(metadata.status, 200);
    assert.ok(metadata.headers.get('access-control-allow-origin'), 'a CORS answer');
    assert.equal(metadata.headers.get('access-control-allow-origin'), discovery.headers.get('access-control-allow-origin'));
  });
});

describe('authorization server metadata of an issuer with a path (RFC 8414 §3.1)', () => {
  const svc = useService({ PUBLIC_URL: 'http://127.0.0.1:{port}/tenant' });

  it('answers at the path-inserted URL, naming that issuer', async () => {
    const metadata = await getJson(svc, '/.well-known/oauth-authorization-server/tenant');
    assert.equal(metadata.status, 200);
    assert.match(metadata.type ?? '', /^application\/json/);
    assert.equal(metadata.body.issuer, svc.config.publicUrl);
    assert.ok(svc.config.publicUrl.endsWith('/tenant'));
    assert.deepEqual(metadata.body.code_challenge_methods_supported, ['S256']);
  });
});
