import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CrossAppAccessProvider, discoverAndRequestJwtAuthGrant, exchangeJwtAuthGrant } from '@modelcontextprotocol/client';
import { createTestDatabase } from '../support/database.js';
import type { TestDatabase } from '../support/database.js';
import { createCaller, unique, useService } from '../support/fixtures.js';
import { createClient } from '../support/http.js';
import { spawnService } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { EXCHANGE, RP } from '../oidc/support/token-exchange.js';
import { connectAuthorized, recordingFetch, transcript, whoami } from './support/mcp-client.js';
import type { Exchange } from './support/mcp-client.js';
import { startMcpServer } from './support/mcp-server.js';
import type { McpTestServer } from './support/mcp-server.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * docs/agents.md, "Enterprise-managed authorization", with the MCP TypeScript SDK's client: its CrossAppAccessProvider
 * asks a second Portcullis instance (`ent`, the enterprise IdP, in a process of its own with its own database) for an
 * ID-JAG by token exchange, redeems it here (`rs`, the MCP server's authorization server) with the JWT bearer grant,
 * and calls a tool of an MCP server built on the SDK.
 */
describe('MCP TypeScript SDK: enterprise-managed authorization (ID-JAG) between two instances', () => {
  const ent = {} as TestService;
  let entProcess: ServiceProcess;
  let entDatabase: TestDatabase;
  let entDataDir: string;
  // `rs` fetches `ent`'s keys on loopback.
  const rs = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let mcp: McpTestServer;
  let entAgent: OidcApp;
  let rsAgent: OidcApp;
  let alice: { entLoginName: string; rsUserName: string };

  before(async () => {
    entDataDir = mkdtempSync(join(tmpdir(), 'portcullis-ent-'));
    entDatabase = await createTestDatabase();
    const port = await freePort();
    entProcess = await spawnService(
      { DATA_DIR: entDataDir, LOG_LEVEL: 'error', PUBLIC_URL: `http://127.0.0.1:${port}`, ...(entDatabase.url ? { DATABASE_URL: entDatabase.url } : {}) },
      { port },
    );
    Object.assign(ent, {
      url: entProcess.url,
      config: { publicUrl: entProcess.url },
      adminToken: readFileSync(join(entDataDir, 'admin.pat'), 'utf8').trim(),
      api: createClient(entProcess.url),
    });

    // The MCP server and its authorization server.
    mcp = await startMcpServer(rs.url);
    const rsProject = await createProject(rs);
    const api = await rs.api('POST', `/management/v1/orgs/${rsProject.orgId}/projects/${rsProject.projectId}/apps/api`, {
      token: rs.adminToken,
      body: {
        name: unique('files'),
        authMethod: 'client_secret_basic',
        resourceUri: mcp.url,
        scopes: [{ name: 'files:read', description: 'Read your files' }],
      },
    });
    assert.equal(api.status, 201, api.text);
    mcp.protect({ clientId: api.body.clientId, clientSecret: api.body.clientSecret }, ['files:read']);
    // CrossAppAccessProvider authenticates with client_secret_basic at the MCP server's authorization server.
    rsAgent = await createOidcApp(rs, rsProject, { authMethod: 'client_secret_basic', grantTypes: ['authorization_code', JWT_BEARER] }, RP);
    const idp = await rs.api('POST', `/management/v1/orgs/${rsProject.orgId}/idps`, {
      token: rs.adminToken,
      body: {
        type: 'oidc',
        name: 'Enterprise IdP',
        issuer: ent.url,
        clientId: 'rs-at-ent',
        clientSecret: 'unused-secret-1',
        link: { by: 'email', from: 'email' },
        acceptIdJag: true,
      },
    });
    assert.equal(idp.status, 201, idp.text);

    // The enterprise IdP: the agent's application there (requestJwtAuthorizationGrant sends its secret in the body),
    // the external resource, a person granted in its project.
    assert.equal((await ent.api('PUT', '/admin/v1/features', { token: ent.adminToken, body: { tokenExchange: true } })).status, 200);
    const entProject = await createProject(ent);
    const owner = await createCaller(ent, entProject.orgId, { org: ['ORG_OWNER'] });
    entAgent = await createOidcApp(ent, entProject, { authMethod: 'client_secret_post', grantTypes: ['authorization_code', EXCHANGE] }, RP);
    const external = await ent.api('POST', `/management/v1/orgs/${entProject.orgId}/external-resources`, {
      token: owner.token,
      body: { name: 'Files', issuer: rs.url, resource: mcp.url, scopes: ['files:read'], clientIdAtIssuer: rsAgent.clientId, projectId: entProject.projectId },
    });
    assert.equal(external.status, 201, external.text);
    const entAlice = await createHuman(ent, entProject.orgId);
    const grant = await ent.api('POST', `/management/v1/orgs/${entProject.orgId}/projects/${entProject.projectId}/grants`, {
      token: ent.adminToken,
      body: { userId: entAlice.userId, roles: [] },
    });
    assert.equal(grant.status, 201, grant.text);
    const rsUserName = unique('alice');
    const rsAlice = await rs.api('POST', `/management/v1/orgs/${rsProject.orgId}/users/human`, {
      token: rs.adminToken,
      body: {
        userName: rsUserName,
        profile: { firstName: 'Alice', lastName: 'A' },
        email: { email: `${entAlice.userName}@example.com`, isEmailVerified: true },
        password: PASSWORD,
      },
    });
    assert.equal(rsAlice.status, 201, rsAlice.text);
    alice = { entLoginName: `${entAlice.userName}@${entProject.primaryDomain}`, rsUserName };
  });

  after(async () => {
    await mcp?.close();
    await entProcess?.stop();
    await entDatabase?.drop();
    if (entDataDir) rmSync(entDataDir, { recursive: true, force: true });
  });

  /** The person's single sign-on at the enterprise IdP: the ID token the agent holds. */
  async function idToken(): Promise<string> {
    const { tokens, error } = await signIn(ent, {
      clientId: entAgent.clientId,
      clientAuth: { client_secret: entAgent.clientSecret! },
      redirectUri: `${RP}/cb`,
      loginName: alice.entLoginName,
      password: PASSWORD,
      scope: 'openid email',
    });
    assert.ok(tokens?.id_token, `signed in at the enterprise IdP: ${error}`);
    return tokens.id_token;
  }

  it('CrossAppAccessProvider: ID token → ID-JAG at the IdP → access token here → tool call', async () => {
    const held = await idToken();
    const log: Exchange[] = [];
    const provider = new CrossAppAccessProvider({
      assertion: async (ctx) =>
        (
          await discoverAndRequestJwtAuthGrant({
            idpUrl: ent.url,
            audience: ctx.authorizationServerUrl,
            resource: ctx.resourceUrl,
            idToken: held,
            clientId: entAgent.clientId,
            clientSecret: entAgent.clientSecret,
            scope: ctx.scope,
            fetchFn: ctx.fetchFn,
          })
        ).jwtAuthGrant,
      clientId: rsAgent.clientId,
      clientSecret: rsAgent.clientSecret!,
      expectedIssuer: rs.config.publicUrl,
      fetchFn: recordingFetch(log),
    });
    const client = await connectAuthorized(mcp.url, provider, log);
    try {
      const me = await whoami(client);
      assert.ok(me.includes(alice.rsUserName), `the tool answers for the linked person here: ${me}\n${transcript(log)}`);
      const introspected = mcp.introspections.at(-1)!;
      assert.deepEqual(introspected.aud, [mcp.url]);
      assert.equal(introspected.client_id, rsAgent.clientId);
      assert.equal(provider.tokens()?.refresh_token, undefined, 'no refresh token: the agent asks the IdP for a new ID-JAG');
    } finally {
      await client.close();
    }
  });

  it('exchangeJwtAuthGrant redeems an ID-JAG once; the same ID-JAG again is refused', async () => {
    const { jwtAuthGrant } = await discoverAndRequestJwtAuthGrant({
      idpUrl: ent.url,
      audience: rs.config.publicUrl,
      resource: mcp.url,
      idToken: await idToken(),
      clientId: entAgent.clientId,
      clientSecret: entAgent.clientSecret,
      scope: 'files:read',
    });
    const tokenEndpoint = `${rs.config.publicUrl}/oauth/v2/token`;
    const redeem = () => exchangeJwtAuthGrant({ tokenEndpoint, jwtAuthGrant, clientId: rsAgent.clientId, clientSecret: rsAgent.clientSecret });
    const tokens = await redeem();
    assert.equal(tokens.token_type.toLowerCase(), 'bearer');
    const client = await connectAuthorized(mcp.url, { token: async () => tokens.access_token }, []);
    try {
      assert.ok((await whoami(client)).includes(alice.rsUserName));
    } finally {
      await client.close();
    }
    await assert.rejects(redeem(), /invalid_grant/, 'a replayed ID-JAG');
  });
});
