import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { unique, useService } from '../support/fixtures.js';
import type { TestService } from '../support/service.js';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { AgentProvider, connectAgent, transcript, whoami } from './support/mcp-client.js';
import type { Exchange } from './support/mcp-client.js';
import { startMcpServer } from './support/mcp-server.js';
import type { McpTestServer } from './support/mcp-server.js';

const SCOPES = [{ name: 'files:read', description: 'Read your files' }];

type Project = { orgId: string; projectId: string; primaryDomain: string };

/** The API application the MCP server is known by: its `resourceUri` is the server's URL. */
async function protectWithApiApp(svc: TestService, project: Project, mcp: McpTestServer): Promise<void> {
  const res = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/api`, {
    token: svc.adminToken,
    body: { name: unique('mcp'), authMethod: 'client_secret_basic', resourceUri: mcp.url, scopes: SCOPES },
  });
  assert.equal(res.status, 201, res.text);
  mcp.protect(
    { clientId: res.body.clientId, clientSecret: res.body.clientSecret },
    SCOPES.map((s) => s.name),
  );
}

/**
 * docs/agents.md: clients no one here wrote. The MCP TypeScript SDK's client connects to an MCP server built on the
 * same SDK whose tokens this instance issues and checks by introspection; Chromium signs the person in.
 */
describe('MCP TypeScript SDK client and server', () => {
  const svc = useService();
  let browser: Browser;
  let rp: RelyingParty;
  let mcp: McpTestServer;
  let project: Project;
  let loginName: string;
  let userName: string;

  before(async () => {
    browser = await launchBrowser();
    rp = await startRelyingParty();
    project = await createProject(svc);
    mcp = await startMcpServer(svc.url);
    await protectWithApiApp(svc, project, mcp);
    const user = await createHuman(svc, project.orgId);
    userName = user.userName;
    loginName = `${user.userName}@${project.primaryDomain}`;
  });
  after(async () => {
    await mcp?.close();
    await rp?.close();
    await browser?.close();
  });

  /** Chromium opens the authorization URL the SDK made, signs in and returns what reached the redirect URI. */
  const signInWithChromium = async (authorizationUrl: URL): Promise<URLSearchParams> => {
    const { context, page } = await newPage(browser);
    try {
      const cb = await authorize(rp, page, authorizationUrl, async (p) => {
        await p.waitForLoadState();
        if (!(await p.isVisible('input[name="password"]'))) throw new Error(`no login form at ${p.url()}: ${(await p.textContent('body'))?.slice(0, 500)}`);
        await submitLogin(p, loginName, PASSWORD);
      });
      return callbackParams(cb);
    } finally {
      await context.close();
    }
  };

  it('a pre-registered public client: 401 → RFC 9728 → RFC 8414 → code with PKCE and resource → token → tool call', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'none', redirectUris: [`${rp.url}/cb`] });
    const provider = new AgentProvider(
      `${rp.url}/cb`,
      { client_name: 'SDK agent', redirect_uris: [`${rp.url}/cb`], token_endpoint_auth_method: 'none' },
      { clientId: app.clientId, issuer: svc.config.publicUrl },
    );
    const log: Exchange[] = [];
    const client = await connectAgent(mcp.url, provider, signInWithChromium, log);
    try {
      const me = await whoami(client);
      assert.ok(me.includes(userName), `the tool answers for the person who signed in: ${me}\n${transcript(log)}`);
      const url = provider.authorizationUrl!;
      assert.equal(url.searchParams.get('resource'), mcp.url, 'RFC 8707: the resource is the MCP server');
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      const introspected = mcp.introspections.at(-1)!;
      assert.equal(introspected.active, true);
      assert.deepEqual(introspected.aud, [mcp.url]);
      assert.ok(String(introspected.scope).split(' ').includes('files:read'), JSON.stringify(introspected));
      const discovery = log.map((e) => new URL(e.url).pathname);
      assert.ok(discovery.includes('/.well-known/oauth-protected-resource/mcp'), transcript(log));
      assert.ok(discovery.includes('/.well-known/oauth-authorization-server'), transcript(log));
    } finally {
      await client.close();
    }
  });
});
