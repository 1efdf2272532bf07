import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { FederatedBrowser } from '../federation/support/federated-browser.js';
import { startForgingUpstream } from '../federation/support/forging-upstream.js';
import type { ForgingUpstream } from '../federation/support/forging-upstream.js';

/**
 * A host the caller runs: it records every request it gets (Basic credentials decoded: RFC 6749 §2.3.1 form-encodes
 * them), answers a token request at `/token` with an access token of its own (RFC 6749 §4.4.3), recorded in
 * `issued`, and anything else with 401.
 */
async function startRecorder(): Promise<{ origin: string; heard: string[]; issued: string[]; close(): Promise<void> }> {
  const heard: string[] = [];
  const issued: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const authorization = req.headers.authorization ?? '';
      const credentials = authorization.startsWith('Basic ') ? decodeURIComponent(Buffer.from(authorization.slice(6), 'base64').toString()) : authorization;
      heard.push(`${req.method} ${req.url} ${credentials} ${Buffer.concat(chunks).toString()}`);
      if (req.method === 'POST' && req.url === '/token') {
        const token = unique('issued-access-token');
        issued.push(token);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 300 }));
        return;
      }
      res.writeHead(401, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, heard, issued, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const fieldsOf = (body: { details?: { field: string }[] }) => (body.details ?? []).map((d) => d.field);

/**
 * docs/provisioning.md and docs/federation.md: a stored secret is write-only, so an editor must not be able to read
 * it by pointing the URL it is sent to at a host of their own and pressing "test". A PATCH that moves it must carry
 * the secret again (400 naming the field otherwise, nothing changed).
 */
describe('a stored secret does not follow a changed URL', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let legit: Awaited<ReturnType<typeof startRecorder>>;
  let attacker: Awaited<ReturnType<typeof startRecorder>>;
  let orgId: string;
  let owner: { userId: string; token: string };

  before(async () => {
    legit = await startRecorder();
    attacker = await startRecorder();
    orgId = (await createOrg(svc)).id;
    owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
  });
  after(async () => {
    await legit?.close();
    await attacker?.close();
  });

  describe('provisioning targets', () => {
    const targets = () => `/management/v1/orgs/${orgId}/provisioning/targets`;
    const bearer = (token: string) => ({ name: unique('Target'), baseUrl: `${legit.origin}/scim/v2`, auth: { type: 'bearer', token } });
    const oauth = (clientSecret: string) => ({
      name: unique('Target'),
      baseUrl: `${legit.origin}/scim/v2`,
      auth: { type: 'oauth_client_credentials', tokenUrl: `${legit.origin}/token`, clientId: 'portcullis', clientSecret },
    });
    const cases: { name: string; create: (secret: string) => Record<string, unknown>; change: Record<string, unknown>; field: string }[] = [
      { name: 'bearer: baseUrl', create: bearer, change: { baseUrl: 'ATTACKER/scim/v2' }, field: 'auth.token' },
      {
        name: 'oauth: auth.tokenUrl',
        create: oauth,
        change: { auth: { type: 'oauth_client_credentials', tokenUrl: 'ATTACKER/token' } },
        field: 'auth.clientSecret',
      },
      // The access token the client secret buys is a credential at the real target too.
      { name: 'oauth: baseUrl', create: oauth, change: { baseUrl: 'ATTACKER/scim/v2' }, field: 'auth.clientSecret' },
    ];

    for (const c of cases) {
      it(`${c.name}: a PATCH to another host without the secret is a 400 naming ${c.field}; the secret never arrives there`, async () => {
        const secret = unique('stored-secret');
        const created = await svc.api('POST', targets(), { token: owner.token, body: c.create(secret) });
        assert.equal(created.status, 201, created.text);
        const path = `${targets()}/${created.body.id}`;
        const before = await svc.api('GET', path, { token: owner.token });

        const change = JSON.parse(JSON.stringify(c.change).replaceAll('ATTACKER', attacker.origin));
        const patched = await svc.api('PATCH', path, { token: owner.token, body: change });
        const tested = await svc.api('POST', `${path}/test`, { token: owner.token, body: {} });
        assert.equal(tested.status, 200, tested.text);
        assert.deepEqual(
          attacker.heard.filter((request) => request.includes(secret)),
          [],
          'the stored secret reached the host of the PATCH',
        );
        assert.deepEqual(
          attacker.heard.filter((request) => legit.issued.some((token) => request.includes(token))),
          [],
          'an access token the stored secret bought reached the host of the PATCH',
        );

        assert.equal(patched.status, 400, patched.text);
        assert.deepEqual(fieldsOf(patched.body), [c.field]);
        assert.deepEqual((await svc.api('GET', path, { token: owner.token })).body, before.body, 'nothing changed');
      });
    }

    it('a PATCH that carries the secret again moves it; the same URL sent again needs none', async () => {
      const created = await svc.api('POST', targets(), { token: owner.token, body: bearer(unique('old-secret')) });
      const path = `${targets()}/${created.body.id}`;
      const same = await svc.api('PATCH', path, { token: owner.token, body: { baseUrl: `${legit.origin}/scim/v2`, name: 'Renamed' } });
      assert.equal(same.status, 200, same.text);

      const fresh = unique('new-secret');
      const moved = await svc.api('PATCH', path, {
        token: owner.token,
        body: { baseUrl: `${attacker.origin}/scim/v2`, auth: { type: 'bearer', token: fresh } },
      });
      assert.equal(moved.status, 200, moved.text);
      assert.equal(moved.body.baseUrl, `${attacker.origin}/scim/v2`);
      await svc.api('POST', `${path}/test`, { token: owner.token, body: {} });
      assert.ok(
        attacker.heard.some((request) => request.includes(`Bearer ${fresh}`)),
        'the secret sent with the PATCH is the one used',
      );
    });
  });

  describe('OpenID Connect identity providers', () => {
    let legitIdp: ForgingUpstream;
    let attackerIdp: ForgingUpstream;
    let app: OidcApp;
    const idps = () => `/management/v1/orgs/${orgId}/idps`;

    before(async () => {
      legitIdp = await startForgingUpstream('portcullis');
      attackerIdp = await startForgingUpstream('portcullis');
      app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' });
    });
    after(async () => {
      await legitIdp?.close();
      await attackerIdp?.close();
    });

    /** A sign-in through the IdP's button, followed to wherever the service sends the browser and back. */
    const signInThrough = async (idpId: string) => {
      const browser = new FederatedBrowser(svc, legitIdp.issuer);
      const toUpstream = await browser.choose(await browser.authorize(app), idpId);
      assert.equal(toUpstream.status, 303, toUpstream.text.slice(0, 300));
      // Either upstream answers its authorization request at once with a redirect back to the service.
      const back = await fetch(toUpstream.location!, { redirect: 'manual' });
      await browser.walk({ status: back.status, headers: back.headers, text: await back.text(), location: back.headers.get('location') ?? undefined });
    };

    it('a PATCH of the issuer without the client secret is a 400 naming clientSecret; the secret never reaches the new issuer', async () => {
      const secret = unique('idp-secret');
      const created = await svc.api('POST', idps(), {
        token: owner.token,
        body: { type: 'oidc', name: unique('Upstream'), issuer: legitIdp.issuer, clientId: 'portcullis', clientSecret: secret },
      });
      assert.equal(created.status, 201, created.text);
      const path = `${idps()}/${created.body.id}`;
      const before = await svc.api('GET', path, { token: owner.token });

      const patched = await svc.api('PATCH', path, { token: owner.token, body: { issuer: attackerIdp.issuer } });
      await signInThrough(created.body.id);
      assert.deepEqual(
        attackerIdp.tokenRequests.filter((request) => request.includes(secret)),
        [],
        'the stored client secret reached the new issuer',
      );

      assert.equal(patched.status, 400, patched.text);
      assert.deepEqual(fieldsOf(patched.body), ['clientSecret']);
      assert.deepEqual((await svc.api('GET', path, { token: owner.token })).body, before.body, 'nothing changed');
      assert.ok(
        legitIdp.tokenRequests.some((request) => request.includes(secret)),
        'the control: the sign-in redeemed its code at the issuer it was configured with',
      );
    });

    it('a PATCH that carries the client secret again moves it; the same issuer sent again needs none', async () => {
      const created = await svc.api('POST', idps(), {
        token: owner.token,
        body: { type: 'oidc', name: unique('Upstream'), issuer: legitIdp.issuer, clientId: 'portcullis', clientSecret: unique('old') },
      });
      const path = `${idps()}/${created.body.id}`;
      assert.equal((await svc.api('PATCH', path, { token: owner.token, body: { issuer: legitIdp.issuer, name: 'Renamed' } })).status, 200);
      const fresh = unique('new');
      const moved = await svc.api('PATCH', path, { token: owner.token, body: { issuer: attackerIdp.issuer, clientSecret: fresh } });
      assert.equal(moved.status, 200, moved.text);
      await signInThrough(created.body.id);
      assert.ok(
        attackerIdp.tokenRequests.some((request) => request.includes(fresh)),
        'the secret sent with the PATCH is the one used',
      );
    });
  });
});
