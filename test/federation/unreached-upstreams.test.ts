import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createCaller, createOrg, searchEvents, unique, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { FederatedBrowser } from './support/federated-browser.js';
import { idpMetadataXml } from './support/saml-metadata.js';
import { startUpstreamIdp } from './support/upstream-idp.js';
import type { UpstreamIdp } from './support/upstream-idp.js';

const SECRET = 'upstream-client-secret-19be';
const SSO_URL = 'http://localhost:9/sso';

/**
 * docs/federation.md, "Not reached yet": an IdP whose issuer or metadata URL did not resolve when it was set is
 * reached at its first sign-in — an OIDC IdP then reads `reached: true`; a SAML IdP's metadata is read then, stored
 * (an `org.idp.changed` by no one), and the person follows a link to the SSO URL the login page could not name.
 * Here "the DNS name began to resolve" is the stored URL pointed at a server on this machine.
 */
describe('federation: upstreams not reached yet', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let upstream: UpstreamIdp;
  let metadataServer: Server;
  let metadataRequests = 0;
  let orgId: string;
  let owner: { userId: string; token: string };
  let app: OidcApp;
  const idps = () => `/management/v1/orgs/${orgId}/idps`;

  /** As if the host of the stored URL now resolved to where `url` points. */
  const pointAt = async (idpId: string, field: 'issuer' | 'metadataUrl', url: string) => {
    const [row] = await svc.dataSource.query('SELECT settings FROM identity_providers WHERE id = ?', [idpId]);
    await svc.dataSource.query('UPDATE identity_providers SET settings = ? WHERE id = ?', [
      JSON.stringify({ ...JSON.parse(row.settings), [field]: url }),
      idpId,
    ]);
  };

  before(async () => {
    upstream = await startUpstreamIdp({ 'alice-sub': { preferred_username: unique('alice') } });
    metadataServer = createServer((_req, res) => {
      metadataRequests++;
      res.writeHead(200, { 'content-type': 'application/samlmetadata+xml' }).end(idpMetadataXml('https://idp.later.example/saml', SSO_URL));
    });
    await new Promise<void>((resolve) => metadataServer.listen(0, '127.0.0.1', resolve));
    orgId = (await createOrg(svc)).id;
    owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' });
  });

  after(async () => {
    await upstream?.close();
    metadataServer?.close();
  });

  it('an OIDC IdP reads reached once its discovery answered at a sign-in', async () => {
    const port = new URL(upstream.issuer).port;
    const created = await svc.api('POST', idps(), {
      token: owner.token,
      body: { type: 'oidc', name: unique('Later'), issuer: `http://login.not-yet.invalid:${port}`, clientId: 'later', clientSecret: SECRET },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal((await svc.api('GET', `${idps()}/${created.body.id}`, { token: owner.token })).body.reached, false);

    const browser = new FederatedBrowser(svc, upstream.issuer);
    const unreachable = await browser.choose(await browser.authorize(app), created.body.id);
    assert.equal(unreachable.status, 502, 'still not resolving: the upstream error page');
    assert.match(unreachable.text, /data-error="upstream_error"/);
    assert.equal((await svc.api('GET', `${idps()}/${created.body.id}`, { token: owner.token })).body.reached, false);

    await pointAt(created.body.id, 'issuer', upstream.issuer);
    const again = new FederatedBrowser(svc, upstream.issuer);
    const toUpstream = await again.choose(await again.authorize(app), created.body.id);
    assert.equal(toUpstream.status, 303, toUpstream.text.slice(0, 300));
    assert.equal(new URL(toUpstream.location!).origin, upstream.issuer);
    assert.equal((await svc.api('GET', `${idps()}/${created.body.id}`, { token: owner.token })).body.reached, true);
  });

  it('a SAML IdP has its metadata read at the first sign-in, then a link leads on; later sign-ins redirect', async () => {
    const created = await svc.api('POST', idps(), {
      token: owner.token,
      body: { type: 'saml', name: unique('Later SAML'), metadataUrl: `http://metadata.not-yet.invalid:${(metadataServer.address() as AddressInfo).port}/md` },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const browser = new FederatedBrowser(svc, upstream.issuer);
    const login = await browser.authorize(app);
    assert.match(login.headers.get('content-security-policy') ?? '', /form-action 'self'/);
    const unreachable = await browser.choose(login, id);
    assert.equal(unreachable.status, 502, unreachable.text.slice(0, 300));
    assert.match(unreachable.text, /data-error="upstream_error"/);
    assert.equal(metadataRequests, 0);

    await pointAt(id, 'metadataUrl', `http://127.0.0.1:${(metadataServer.address() as AddressInfo).port}/md`);
    const first = new FederatedBrowser(svc, upstream.issuer);
    const page = await first.choose(await first.authorize(app), id);
    assert.equal(page.status, 200, page.text.slice(0, 300));
    const href = /<a href="([^"]+)" data-idp-continue>/.exec(page.text)?.[1].replace(/&#38;/g, '&');
    assert.ok(href?.startsWith(`${SSO_URL}?SAMLRequest=`), `a link to the SSO URL: ${page.text.slice(0, 600)}`);
    assert.ok(new URL(href!).searchParams.get('RelayState'), 'with the round trip’s handle');
    assert.equal(metadataRequests, 1);

    const read = await svc.api('GET', `${idps()}/${id}`, { token: owner.token });
    assert.deepEqual([read.body.reached, read.body.entityId, read.body.ssoUrl], [true, 'https://idp.later.example/saml', SSO_URL]);
    const [changed] = (await searchEvents(svc, { event_types: ['org.idp.changed'], aggregate_id: id })).slice(-1);
    assert.equal(changed.payload.metadataRead, true);
    assert.equal(changed.payload.entityId, 'https://idp.later.example/saml');
    assert.equal(changed.editor.userId, null);

    const later = new FederatedBrowser(svc, upstream.issuer);
    const laterLogin = await later.authorize(app);
    assert.match(laterLogin.headers.get('content-security-policy') ?? '', /form-action [^;]*http:\/\/localhost:9/, 'the login page names the SSO URL now');
    const redirected = await later.choose(laterLogin, id);
    assert.equal(redirected.status, 303);
    assert.ok(redirected.location?.startsWith(`${SSO_URL}?SAMLRequest=`));
    assert.equal(metadataRequests, 1, 'read once');
  });
});
