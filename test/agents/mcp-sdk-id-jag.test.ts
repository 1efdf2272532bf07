import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CrossAppAccessProvider, discoverAndRequestJwtAuthGrant, exchangeJwtAuthGrant } from '@modelcontextprotocol/client';
import { useService } from '../support/fixtures.js';
import { PASSWORD } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { signIn } from '../oidc/support/sign-in.js';
import { RP } from '../oidc/support/token-exchange.js';
import { setUpIdJagTrust, useEnterpriseIdp } from './support/id-jag-instances.js';
import type { IdJagTrust } from './support/id-jag-instances.js';
import { connectAuthorized, recordingFetch, transcript, whoami } from './support/mcp-client.js';
import type { Exchange } from './support/mcp-client.js';
import { startMcpServer } from './support/mcp-server.js';
import type { McpTestServer } from './support/mcp-server.js';

/**
 * docs/agents.md, "Enterprise-managed authorization", with the MCP TypeScript SDK's client: its CrossAppAccessProvider
 * asks a second Portcullis instance (`ent`, the enterprise IdP, in a process of its own with its own database) for an
 * ID-JAG by token exchange, redeems it here (`rs`, the MCP server's authorization server) with the JWT bearer grant,
 * and calls a tool of an MCP server built on the SDK.
 */
describe('MCP TypeScript SDK: enterprise-managed authorization (ID-JAG) between two instances', () => {
  // `rs` fetches `ent`'s keys on loopback.
  const rs = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  const ent = useEnterpriseIdp();
  let mcp: McpTestServer;
  let entAgent: OidcApp;
  let rsAgent: OidcApp;
  let alice: IdJagTrust['alice'];

  before(async () => {
    mcp = await startMcpServer(rs.url);
    // requestJwtAuthorizationGrant sends the agent's secret at the IdP in the body; CrossAppAccessProvider
    // authenticates with client_secret_basic at the MCP server's authorization server.
    const trust = await setUpIdJagTrust(ent, rs, { resource: mcp.url, entAgentAuth: 'client_secret_post' });
    ({ entAgent, rsAgent, alice } = trust);
    mcp.protect(trust.rsApi, ['files:read']);
    const { entProject, owner } = trust;
    const external = await ent.api('POST', `/management/v1/orgs/${entProject.orgId}/external-resources`, {
      token: owner.token,
      body: { name: 'Files', issuer: rs.url, resource: mcp.url, scopes: ['files:read'], clientIdAtIssuer: rsAgent.clientId, projectId: entProject.projectId },
    });
    assert.equal(external.status, 201, external.text);
  });

  after(() => mcp?.close());

  /** The person's single sign-on at the enterprise IdP: the ID token the agent holds. */
  async function idToken(): Promise<string> {
    const { tokens, error } = await signIn(ent, {
      clientId: entAgent.clientId,
      clientAuth: { client_secret: entAgent.clientSecret! },
      redirectUri: `${RP}/cb`,
      loginName: alice.loginName,
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
