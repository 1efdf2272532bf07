import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { unique, useService } from '../support/fixtures.js';
import { spawnSecondProcess } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';
import type { TestService } from '../support/service.js';
import { throwAwayCa } from '../support/throw-away-ca.js';
import { PASSWORD, createHuman, createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from '../oidc/support/browser.js';
import type { RelyingParty } from '../oidc/support/browser.js';
import { startClientDocuments } from './support/client-documents.js';
import type { ClientDocuments } from './support/client-documents.js';
import { AgentProvider, connectAgent, connectAuthorized, transcript, whoami } from './support/mcp-client.js';
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

/** What the operator switches on for agents (docs/agents.md): CIMD clients with consent, open dynamic registration. */
async function acceptAgents(svc: TestService, orgId: string): Promise<void> {
  const res = await svc.api('PUT', `/management/v1/orgs/${orgId}/login-policy`, {
    token: svc.adminToken,
    body: { mfa: 'optional', passkeys: true, allowRegistration: true, agentClients: 'consent', dynamicRegistration: 'open' },
  });
  assert.equal(res.status, 200, res.text);
}

/**
 * docs/agents.md, "Connecting an MCP client": clients no one here wrote. The MCP TypeScript SDK's client connects to
 * an MCP server built on the same SDK whose tokens this instance issues and checks by introspection; Chromium signs
 * the person in. The agents' side of the instance is a second process that trusts the throw-away CA of the
 * Client ID Metadata Documents' HTTPS server (NODE_EXTRA_CA_CERTS) and may fetch from loopback; the first one
 * (in-process) serves the management API.
 */
describe('MCP TypeScript SDK client and server', () => {
  const svc = useService();
  let dir: string;
  let documents: ClientDocuments;
  let agentSide: ServiceProcess;
  let issuer: string;
  let browser: Browser;
  let rp: RelyingParty;
  let mcp: McpTestServer;
  let project: Project;
  let loginName: string;
  let userName: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-mcp-'));
    const tls = throwAwayCa(dir);
    documents = await startClientDocuments(tls);
    const port = await freePort();
    agentSide = await spawnSecondProcess(
      svc,
      { PUBLIC_URL: `http://127.0.0.1:${port}`, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: tls.ca },
      { port },
    );
    issuer = agentSide.url;
    browser = await launchBrowser();
    rp = await startRelyingParty();
    project = await createProject(svc);
    await acceptAgents(svc, project.orgId);
    mcp = await startMcpServer(issuer);
    await protectWithApiApp(svc, project, mcp);
    const user = await createHuman(svc, project.orgId);
    userName = user.userName;
    loginName = `${user.userName}@${project.primaryDomain}`;
  });
  after(async () => {
    await mcp?.close();
    await rp?.close();
    await browser?.close();
    if (agentSide && agentSide.child.exitCode !== null) console.error(agentSide.output());
    await agentSide?.stop();
    await documents?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Chromium opens the authorization URL the SDK made, signs in, allows on the consent page if one is shown. */
  const signInWithChromium =
    (consent: { shown?: boolean } = {}) =>
    async (authorizationUrl: URL): Promise<URLSearchParams> => {
      const { context, page } = await newPage(browser);
      const visited: string[] = [];
      page.on('response', (r) =>
        visited.push(`${r.status()} ${r.request().method()} ${r.url()} ${r.headers()['set-cookie'] ?? ''} ${r.headers()['location'] ?? ''}`),
      );
      try {
        const cb = await authorize(rp, page, authorizationUrl, async (p) => {
          await p.waitForLoadState();
          if (!(await p.isVisible('input[name="password"]'))) throw new Error(`no login form at ${p.url()}: ${(await p.textContent('body'))?.slice(0, 500)}`);
          await submitLogin(p, loginName, PASSWORD);
          consent.shown = await allowIfAsked(p).catch((e: Error) => {
            throw new Error(`${e.message}\n${visited.join('\n')}`);
          });
        });
        return callbackParams(cb);
      } finally {
        await context.close();
      }
    };
  /** After the sign-in: the consent page's Allow, or straight back to the client. */
  const allowIfAsked = async (page: Page): Promise<boolean> => {
    const asked = await Promise.race([
      page.waitForSelector('[data-consent-allow]', { timeout: 15_000 }).then(() => true),
      page.waitForURL((url) => url.href.startsWith(rp.url), { timeout: 15_000 }).then(() => false),
    ]).catch(async (error: Error) => {
      throw new Error(`neither consent nor the client at ${page.url()}: ${(await page.textContent('body'))?.slice(0, 600)}\n${error.message}`);
    });
    if (asked) await page.click('[data-consent-allow]');
    return asked;
  };
  const agentMetadata = (name: string) => ({
    client_name: name,
    redirect_uris: [`${rp.url}/cb`],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  /** The token the MCP server was last shown, as introspection described it. */
  const lastIntrospection = () => mcp.introspections.at(-1) as Record<string, unknown>;

  it('a pre-registered public client: 401 → RFC 9728 → RFC 8414 → code with PKCE and resource → token → tool call', async () => {
    const app = await createOidcApp(svc, project, { authMethod: 'none', redirectUris: [`${rp.url}/cb`] });
    const provider = new AgentProvider(`${rp.url}/cb`, agentMetadata('SDK agent'), { clientId: app.clientId, issuer });
    const log: Exchange[] = [];
    const consent: { shown?: boolean } = {};
    const client = await connectAgent(mcp.url, provider, signInWithChromium(consent), log);
    try {
      assert.equal(consent.shown, false, 'an application of the organization asks no consent');
      const me = await whoami(client);
      assert.ok(me.includes(userName), `the tool answers for the person who signed in: ${me}\n${transcript(log)}`);
      const url = provider.authorizationUrl!;
      assert.equal(url.searchParams.get('resource'), mcp.url, 'RFC 8707: the resource is the MCP server');
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.deepEqual(url.searchParams.get('scope')?.split(' ').sort(), ['files:read', 'offline_access'], 'the scopes of the RFC 9728 metadata');
      const introspected = lastIntrospection();
      assert.equal(introspected.active, true);
      assert.deepEqual(introspected.aud, [mcp.url]);
      assert.ok(String(introspected.scope).split(' ').includes('files:read'), JSON.stringify(introspected));
      const paths = log.map((e) => new URL(e.url).pathname);
      assert.ok(paths.includes('/.well-known/oauth-protected-resource/mcp'), transcript(log));
      assert.ok(paths.includes('/.well-known/oauth-authorization-server'), transcript(log));
      assert.ok(provider.tokens()?.refresh_token, 'offline_access yields a refresh token');
    } finally {
      await client.close();
    }
  });

  it('a Client ID Metadata Document: the SDK names itself by its URL; the service fetches it over HTTPS', async () => {
    const name = unique('agent');
    const clientId = documents.publish((id) => ({ client_id: id, ...agentMetadata('SDK agent (CIMD)') }), name);
    const provider = new AgentProvider(`${rp.url}/cb`, agentMetadata('SDK agent (CIMD)'), { clientMetadataUrl: clientId });
    const log: Exchange[] = [];
    const consent: { shown?: boolean } = {};
    const client = await connectAgent(mcp.url, provider, signInWithChromium(consent), log);
    try {
      assert.equal(consent.shown, true, 'the person consented in Chromium');
      assert.ok((await whoami(client)).includes(userName), transcript(log));
      assert.equal(provider.authorizationUrl!.searchParams.get('client_id'), clientId);
      assert.equal(lastIntrospection().client_id, clientId);
      assert.deepEqual(lastIntrospection().aud, [mcp.url]);
      assert.ok((documents.fetches.get(`/clients/${name}.json`) ?? 0) >= 1, 'the service fetched the document');
      assert.ok(!log.some((e) => e.url.endsWith('/oauth/v2/register')), 'no registration');
    } finally {
      await client.close();
    }
  });

  it('dynamic registration (RFC 7591): without a metadata URL the SDK registers itself, then connects', async () => {
    const provider = new AgentProvider(`${rp.url}/cb`, agentMetadata('SDK agent (DCR)'));
    const log: Exchange[] = [];
    const consent: { shown?: boolean } = {};
    const client = await connectAgent(mcp.url, provider, signInWithChromium(consent), log);
    try {
      assert.equal(consent.shown, true, 'the person consented in Chromium');
      assert.ok((await whoami(client)).includes(userName), transcript(log));
      const registration = log.find((e) => e.url.endsWith('/oauth/v2/register'));
      assert.equal(registration?.status, 201, transcript(log));
      const clientId = provider.clientInformation()?.client_id;
      assert.match(String(clientId), /^agent-/);
      assert.equal(lastIntrospection().client_id, clientId);
    } finally {
      await client.close();
    }
  });

  it('Revoke on the account page: the agent’s refresh token dies at once (invalid_grant)', async () => {
    const clientId = documents.publish((id) => ({ client_id: id, ...agentMetadata('SDK agent to revoke') }), unique('agent'));
    const provider = new AgentProvider(`${rp.url}/cb`, agentMetadata('SDK agent to revoke'), { clientMetadataUrl: clientId });
    const log: Exchange[] = [];
    const client = await connectAgent(mcp.url, provider, signInWithChromium(), log);
    await client.close();
    assert.ok(provider.tokens()?.refresh_token, transcript(log));

    const { context, page } = await newPage(browser);
    try {
      await page.goto(`${issuer}/ui/account`);
      if (await page.isVisible('input[name="password"]')) await submitLogin(page, loginName, PASSWORD);
      const agent = page.locator(`[data-agent="${clientId}"]`);
      await agent.waitFor();
      await agent.locator('[data-agent-revoke]').click();
      await page.waitForLoadState();
      assert.equal(await page.locator(`[data-agent="${clientId}"]`).count(), 0, 'no longer listed');
    } finally {
      await context.close();
    }

    // Once its access token has expired, the SDK refreshes as it does on a 401; the token endpoint refuses.
    provider.saveTokens({ ...provider.tokens()!, access_token: 'expired' });
    const refreshLog: Exchange[] = [];
    await assert.rejects(connectAuthorized(mcp.url, provider, refreshLog));
    const refresh = refreshLog.find((e) => e.body?.includes('grant_type=refresh_token'));
    assert.equal(refresh?.status, 400, transcript(refreshLog));
    assert.equal(JSON.parse(refresh!.answer).error, 'invalid_grant');
  });
});
