import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LoginClient } from '../attack/support/login-client.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { spawnSecondProcess } from '../support/process.js';
import type { ServiceProcess } from '../support/process.js';
import { freePort } from '../support/service.js';
import { throwAwayCa } from '../support/throw-away-ca.js';
import type { TestService } from '../support/service.js';
import { PASSWORD, createHuman, createProject, postForm } from './support/oidc-fixtures.js';
import { signIn } from './support/sign-in.js';

/** Registered without a port; requested on any port (RFC 8252 §7.3). */
const REGISTERED_REDIRECT = 'http://127.0.0.1/callback';
const REDIRECT = 'http://127.0.0.1:51234/callback';

type Route = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Client ID Metadata Documents (docs/agents.md, "Client ID Metadata Documents"; draft-ietf-oauth-client-id-metadata-
 * document): documents served over HTTPS by this test with a certificate of a throw-away CA, which a second process
 * of the instance trusts through NODE_EXTRA_CA_CERTS (Node's own trust store plus that CA) and which may reach
 * private networks; the first process (the test's own, private networks not allowed) shows the address rule.
 */
describe('Client ID Metadata Documents', () => {
  const svc = useService();
  const routes = new Map<string, Route>();
  const fetches = new Map<string, number>();
  let dir: string;
  let web: Server;
  let origin: string;
  let agentSide: ServiceProcess;
  /** The second process, as the test helpers address a service. */
  let agentSvc: TestService;
  const stalled: ServerResponse[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portcullis-cimd-'));
    const tls = throwAwayCa(dir);
    web = createServer({ key: readFileSync(tls.key), cert: readFileSync(tls.cert) }, (req, res) => {
      const path = req.url ?? '';
      fetches.set(path, (fetches.get(path) ?? 0) + 1);
      const route = routes.get(path);
      if (route) route(req, res);
      else res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(web.address() as AddressInfo).port}`;
    const port = await freePort();
    agentSide = await spawnSecondProcess(
      svc,
      { PUBLIC_URL: `http://127.0.0.1:${port}`, OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true', NODE_EXTRA_CA_CERTS: tls.ca },
      { port },
    );
    agentSvc = { url: agentSide.url, config: { publicUrl: agentSide.url } } as TestService;
  });

  after(async () => {
    for (const res of stalled) res.destroy();
    if (agentSide && agentSide.child.exitCode !== null) console.error(agentSide.output());
    await agentSide?.stop();
    web?.closeAllConnections();
    web?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Serves `document` (a client's metadata) at a new path; returns its URL, the client id. */
  const serve = (make: (clientId: string) => unknown, headers: Record<string, string> = { 'content-type': 'application/json' }, status = 200) => {
    const path = `/clients/${unique('agent')}.json`;
    const clientId = `${origin}${path}`;
    const body = JSON.stringify(make(clientId));
    routes.set(path, (_req, res) => res.writeHead(status, headers).end(body));
    return { clientId, path };
  };
  const goodDocument = (clientId: string) => ({
    client_id: clientId,
    client_name: 'Test agent',
    redirect_uris: [REGISTERED_REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });

  const setPolicy = async (orgId: string, agentClients: string, agentClientHosts: string[] = []) => {
    const res = await svc.api('PUT', `/management/v1/orgs/${orgId}/login-policy`, {
      token: svc.adminToken,
      body: { mfa: 'optional', passkeys: true, allowRegistration: true, agentClients, agentClientHosts },
    });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  /** An organization with a policy, an API application as resource, and a person. */
  const organization = async (agentClients: string, hosts: string[] = []) => {
    const project = await createProject(svc);
    const resourceUri = `https://${unique('mcp')}.example/mcp`;
    const api = await svc.api('POST', `/management/v1/orgs/${project.orgId}/projects/${project.projectId}/apps/api`, {
      token: svc.adminToken,
      body: { name: unique('mcp'), authMethod: 'client_secret_basic', resourceUri, scopes: [{ name: 'tools:call', description: 'Call tools' }] },
    });
    assert.equal(api.status, 201, api.text);
    await setPolicy(project.orgId, agentClients, hosts);
    const user = await createHuman(svc, project.orgId);
    return { ...project, resourceUri, api: api.body as { clientId: string; clientSecret: string }, loginName: `${user.userName}@${project.primaryDomain}` };
  };
  type Org = Awaited<ReturnType<typeof organization>>;

  /** The authorization request of a public client with PKCE, not followed. */
  const authorize = (target: TestService, clientId: string, extra: Record<string, string> = {}) => {
    const verifier = randomBytes(32).toString('base64url');
    const params = {
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid tools:call',
      state: 'st',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    };
    return new LoginClient(target.url).get(`/oauth/v2/authorize?${new URLSearchParams(params)}`);
  };
  const errorPage = async (clientId: string, extra: Record<string, string> = {}, target: TestService = agentSvc) => {
    const res = await authorize(target, clientId, extra);
    assert.equal(res.location, undefined, 'no redirect to the client');
    return { status: res.status, error: /data-error="([^"]+)"/.exec(res.text)?.[1], text: res.text };
  };
  const redirectError = async (clientId: string, extra: Record<string, string>) => {
    const res = await authorize(agentSvc, clientId, extra);
    assert.equal(res.status, 303, res.text.slice(0, 300));
    const back = new URL(res.location!);
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    return { error: back.searchParams.get('error'), description: back.searchParams.get('error_description') };
  };

  let orgA: Org;
  let offOrg: Org;
  let allowOther: Org;
  let allowThis: Org;

  it('RFC 8414 metadata says client_id_metadata_document_supported once an organization accepts such clients', async () => {
    const before = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
    assert.equal('client_id_metadata_document_supported' in before, false, 'no organization accepts them yet');
    const early = serve(goodDocument);
    const refused = await errorPage(early.clientId, { resource: 'https://any.example/mcp' });
    assert.equal(refused.error, 'invalid_client');
    assert.match(refused.text, /no organization of this instance accepts/);
    assert.equal(fetches.get(early.path), undefined, 'nothing fetched while no organization accepts them');
    orgA = await organization('consent');
    offOrg = await organization('off');
    allowOther = await organization('allowlist', ['other.example']);
    allowThis = await organization('allowlist', ['127.0.0.1']);
    const now = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
    assert.equal(now.client_id_metadata_document_supported, true);
  });

  it('login policy: agentClients and agentClientHosts read back; a bad value is a 400 naming its field, nothing stored', async () => {
    const path = `/management/v1/orgs/${allowThis.orgId}/login-policy`;
    const read = await svc.api('GET', path, { token: svc.adminToken });
    assert.equal(read.body.agentClients, 'allowlist');
    assert.deepEqual(read.body.agentClientHosts, ['127.0.0.1']);
    const base = { mfa: 'optional', passkeys: true, allowRegistration: true };
    const badMode = await svc.api('PUT', path, { token: svc.adminToken, body: { ...base, agentClients: 'always' } });
    assert.equal(badMode.status, 400);
    assert.match(badMode.text, /agentClients/);
    const badHost = await svc.api('PUT', path, {
      token: svc.adminToken,
      body: { ...base, agentClients: 'allowlist', agentClientHosts: ['ok.example', 'https://x.example/'] },
    });
    assert.equal(badHost.status, 400);
    assert.match(badHost.text, /agentClientHosts\[1\]/);
    const twice = await svc.api('PUT', path, {
      token: svc.adminToken,
      body: { ...base, agentClients: 'allowlist', agentClientHosts: ['a.example', 'A.example'] },
    });
    assert.equal(twice.status, 400);
    assert.match(twice.text, /agentClientHosts\[1\]/);
    assert.deepEqual((await svc.api('GET', path, { token: svc.adminToken })).body, read.body, 'nothing stored');
    const fresh = (await createOrg(svc)).id;
    const defaults = await svc.api('GET', `/management/v1/orgs/${fresh}/login-policy`, { token: svc.adminToken });
    assert.equal(defaults.body.agentClients, 'off');
    assert.deepEqual(defaults.body.agentClientHosts, []);
  });

  it('a code flow with PKCE by a CIMD client (loopback redirect on any port) ends with a token for the resource; the document is fetched once', async () => {
    const { clientId, path } = serve(goodDocument, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'max-age=600' });
    const flow = () =>
      signIn(agentSvc, {
        clientId,
        redirectUri: REDIRECT,
        loginName: orgA.loginName,
        password: PASSWORD,
        scope: 'openid tools:call offline_access',
        extra: { resource: orgA.resourceUri, prompt: 'consent' },
        consent: 'allow',
      });
    const { tokens, error, consentShown, consentPage } = await flow();
    assert.ok(tokens, error);
    assert.ok(consentShown, 'the person was asked for consent');
    // What the person can check is the host (its hostname, no port); the name is only what the client says of itself.
    assert.match(consentPage ?? '', /<strong data-consent-client-host>127\.0\.0\.1<\/strong>/, 'the hostname of its client_id, without the port');
    assert.match(consentPage ?? '', /<q data-consent-client-name>Test agent<\/q>/, 'its name, marked as its own words');
    assert.ok((consentPage ?? '').indexOf('data-consent-client-host') < (consentPage ?? '').indexOf('data-consent-client-name'), 'under the verified host');
    assert.doesNotMatch(consentPage ?? '', /data-consent-unverified/, 'a document is no unverified registration');
    assert.ok(tokens.refresh_token, 'offline_access with the refresh_token grant of the document');
    const introspected = await postForm(
      agentSvc,
      '/oauth/v2/introspect',
      { token: tokens.access_token },
      { id: orgA.api.clientId, secret: orgA.api.clientSecret },
    );
    assert.equal(introspected.body.active, true, introspected.text);
    assert.deepEqual(introspected.body.aud, [orgA.resourceUri]);
    assert.equal(introspected.body.client_id, clientId);
    assert.equal(introspected.body.scope.split(' ').includes('tools:call'), true);
    const second = await flow();
    assert.ok(second.tokens, second.error);
    assert.equal(fetches.get(path), 1, 'the cached document served the second flow');
    const refreshed = await postForm(agentSvc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId });
    assert.equal(refreshed.status, 200, refreshed.text);
  });

  it('allowlist: a client id whose host is listed gets its token; one whose host is not is refused with invalid_target', async () => {
    const { clientId } = serve(goodDocument);
    const { tokens, error } = await signIn(agentSvc, {
      clientId,
      redirectUri: REDIRECT,
      loginName: allowThis.loginName,
      password: PASSWORD,
      extra: { resource: allowThis.resourceUri },
      consent: 'allow',
    });
    assert.ok(tokens, error);
    const refused = await redirectError(clientId, { resource: allowOther.resourceUri });
    assert.equal(refused.error, 'invalid_target');
    assert.match(refused.description ?? '', /host/);
  });

  it('the policy is read on use: once the organization turns it off, the refresh token gets invalid_target', async () => {
    const org = await organization('consent');
    const { clientId } = serve(goodDocument);
    const { tokens, error } = await signIn(agentSvc, {
      clientId,
      redirectUri: REDIRECT,
      loginName: org.loginName,
      password: PASSWORD,
      scope: 'openid offline_access',
      extra: { resource: org.resourceUri, prompt: 'consent' },
      consent: 'allow',
    });
    assert.ok(tokens?.refresh_token, error);
    await setPolicy(org.orgId, 'off');
    const refreshed = await postForm(agentSvc, '/oauth/v2/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    assert.equal(refreshed.status, 400, refreshed.text);
    assert.equal(refreshed.body.error, 'invalid_target');
  });

  it('private_key_jwt: a document with its public keys is accepted; one without keys is not', async () => {
    const jwk = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'ES256', use: 'sig' };
    const withKeys = serve((id) => ({ ...goodDocument(id), token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [jwk] } }));
    const accepted = await authorize(agentSvc, withKeys.clientId, { resource: orgA.resourceUri });
    assert.equal(accepted.status, 303, accepted.text.slice(0, 300));
    assert.match(accepted.location ?? '', /\/ui\/login\//, 'on to the login page');
    const withoutKeys = serve((id) => ({ ...goodDocument(id), token_endpoint_auth_method: 'private_key_jwt' }));
    const page = await errorPage(withoutKeys.clientId, { resource: orgA.resourceUri });
    assert.equal(page.error, 'invalid_client');
    assert.match(page.text, /jwks/);
  });

  it('an organization whose policy is off refuses: invalid_target', async () => {
    const { clientId } = serve(goodDocument);
    const refused = await redirectError(clientId, { resource: offOrg.resourceUri });
    assert.equal(refused.error, 'invalid_target');
    assert.match(refused.description ?? '', /does not accept/);
  });

  it('no resource, or one that is no API application: invalid_target', async () => {
    const { clientId } = serve(goodDocument);
    assert.equal((await redirectError(clientId, {})).error, 'invalid_target');
    assert.equal((await redirectError(clientId, { resource: 'https://unknown.example/mcp' })).error, 'invalid_target');
  });

  it('the organization rule holds for the person: a user of another organization than the resource’s gets no code', async () => {
    const { clientId } = serve(goodDocument);
    const browser = new LoginClient(agentSvc.url);
    const { uid, csrf } = await browser.startLogin({
      client_id: clientId,
      redirect_uri: REDIRECT,
      response_type: 'code',
      scope: 'openid',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      resource: orgA.resourceUri,
    });
    const posted = await browser.post(`/ui/login/${uid}/login`, { csrf, loginName: allowThis.loginName, password: PASSWORD });
    assert.equal(posted.status, 403, posted.text.slice(0, 300));
    assert.match(posted.text, /access_denied/);
  });

  it('a document whose client_id differs from its URL by one character: invalid_client page, no redirect', async () => {
    const { clientId } = serve((id) => ({ ...goodDocument(id), client_id: `${id.slice(0, -1)}X` }));
    const page = await errorPage(clientId, { resource: orgA.resourceUri });
    assert.equal(page.status, 400);
    assert.equal(page.error, 'invalid_client');
    assert.match(page.text, /client_id is not exactly its URL/);
  });

  it('a client_name with a bidi override, a zero-width character, a control character or over 100 characters: invalid_client_metadata', async () => {
    for (const name of ['Claude \u202Eedoc', 'Verified\u200B by Portcullis', 'Tab\there', 'x'.repeat(101)]) {
      const { clientId } = serve((id) => ({ ...goodDocument(id), client_name: name }));
      const page = await errorPage(clientId, { resource: orgA.resourceUri });
      assert.equal(page.status, 400, JSON.stringify(name));
      assert.equal(page.error, 'invalid_client_metadata', JSON.stringify(name));
      assert.match(page.text, /client_name/);
    }
    const { clientId } = serve((id) => ({ ...goodDocument(id), client_name: 'ü'.repeat(100) }));
    const page = await authorize(agentSvc, clientId, { resource: orgA.resourceUri });
    assert.doesNotMatch(page.text, /data-error=/, 'a name of 100 characters is accepted');
  });

  it('a redirect URI the document does not list: invalid_redirect_uri page', async () => {
    const { clientId } = serve(goodDocument);
    const page = await errorPage(clientId, { resource: orgA.resourceUri, redirect_uri: 'http://127.0.0.1:51234/elsewhere' });
    assert.equal(page.status, 400);
    assert.equal(page.error, 'invalid_redirect_uri');
    const https = await errorPage(clientId, { resource: orgA.resourceUri, redirect_uri: 'https://127.0.0.1/callback' });
    assert.equal(https.error, 'invalid_redirect_uri', 'the port rule is for http loopback URIs only');
    const loopbacks = serve((id) => ({ ...goodDocument(id), redirect_uris: ['http://localhost/cb', 'http://[::1]/cb'] }));
    for (const redirect of ['http://localhost:41000/cb', 'http://[::1]:41001/cb']) {
      const res = await authorize(agentSvc, loopbacks.clientId, { resource: orgA.resourceUri, redirect_uri: redirect });
      assert.equal(res.status, 303, `${redirect}: ${res.text.slice(0, 200)}`);
      assert.match(res.location ?? '', /\/ui\/login\//, `${redirect} matches on any port`);
    }
  });

  it('a document over 5 KB: invalid_client', async () => {
    const { clientId } = serve((id) => ({ ...goodDocument(id), client_name: 'x'.repeat(5 * 1024) }));
    const page = await errorPage(clientId, { resource: orgA.resourceUri });
    assert.equal(page.error, 'invalid_client');
    assert.match(page.text, /larger than 5120 bytes/);
  });

  it('a document served through a redirect: invalid_client, the redirect not followed', async () => {
    const target = serve(goodDocument);
    const path = `/clients/${unique('moved')}.json`;
    routes.set(path, (_req, res) => res.writeHead(302, { location: target.clientId }).end());
    const page = await errorPage(`${origin}${path}`, { resource: orgA.resourceUri });
    assert.equal(page.error, 'invalid_client');
    assert.match(page.text, /answered 302/);
    assert.equal(fetches.get(target.path), undefined, 'not followed');
  });

  it('a document served as text/html: invalid_client', async () => {
    const { clientId } = serve(goodDocument, { 'content-type': 'text/html' });
    const page = await errorPage(clientId, { resource: orgA.resourceUri });
    assert.equal(page.error, 'invalid_client');
    assert.match(page.text, /text\/html/);
  });

  it('a document with client_secret_basic (a symmetric method): invalid_client', async () => {
    const { clientId } = serve((id) => ({ ...goodDocument(id), token_endpoint_auth_method: 'client_secret_basic' }));
    const page = await errorPage(clientId, { resource: orgA.resourceUri });
    assert.equal(page.error, 'invalid_client');
    assert.match(page.text, /token_endpoint_auth_method/);
  });

  it('a client id URL without a path, or with a fragment: invalid_client, nothing fetched', async () => {
    const before = [...fetches.values()].reduce((a, b) => a + b, 0);
    for (const clientId of [origin, `${origin}/`, `${origin}/clients/x.json#frag`]) {
      const page = await errorPage(clientId, { resource: orgA.resourceUri });
      assert.equal(page.status, 400, clientId);
      assert.equal(page.error, 'invalid_client', clientId);
    }
    assert.match((await errorPage(origin, { resource: orgA.resourceUri })).text, /no path/);
    assert.match((await errorPage(`${origin}/c.json#frag`, { resource: orgA.resourceUri })).text, /fragment/);
    assert.equal(
      [...fetches.values()].reduce((a, b) => a + b, 0),
      before,
    );
  });

  it('a document at a private address, private networks not allowed: invalid_client, never fetched', async () => {
    const { clientId, path } = serve(goodDocument);
    const page = await errorPage(clientId, { resource: orgA.resourceUri }, svc);
    assert.equal(page.status, 400);
    assert.equal(page.error, 'invalid_client');
    assert.match(page.text, /non-public address/);
    assert.equal(fetches.get(path), undefined);
  });

  it('a failure is cached for a short while, never as a client: the document fixed meanwhile is still refused', async () => {
    const path = `/clients/${unique('late')}.json`;
    const clientId = `${origin}${path}`;
    assert.equal((await errorPage(clientId, { resource: orgA.resourceUri })).error, 'invalid_client', 'not there yet (404)');
    routes.set(path, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(goodDocument(clientId))));
    assert.equal((await errorPage(clientId, { resource: orgA.resourceUri })).error, 'invalid_client');
    assert.equal(fetches.get(path), 1, 'the failure was remembered, not fetched again');
  });

  it('a document slower than 5 s: invalid_client', async () => {
    const path = `/clients/${unique('slow')}.json`;
    routes.set(path, (_req, res) => stalled.push(res));
    const started = Date.now();
    const page = await errorPage(`${origin}${path}`, { resource: orgA.resourceUri });
    const elapsed = Date.now() - started;
    assert.equal(page.error, 'invalid_client');
    assert.match(page.text, /within 5 s/);
    assert.ok(elapsed >= 4_900 && elapsed < 9_000, `gave up after ${elapsed} ms`);
  });
});
