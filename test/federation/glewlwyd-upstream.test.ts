import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countRows, createCaller, createOrg, searchEvents, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { FederatedBrowser } from './support/federated-browser.js';
import { glewlwydSkipReason, startGlewlwydUpstream } from './support/glewlwyd.js';
import type { GlewlwydUpstream } from './support/glewlwyd.js';

/** Letters and digits only: the form encoding changes no character of it (the client ids are what is on trial). */
const SECRET = 'GlewlwydClientSecret5e1';
/** Two people at glewlwyd: each JIT sign-in creates the user named by its `sub`. */
const ADA = { username: 'ada', password: 'Glewlwyd-Pass-1' };
const GRACE = { username: 'grace', password: 'Glewlwyd-Pass-2' };

/**
 * docs/federation.md, "Connecting an upstream": Debian's glewlwyd 2.7 does not form-decode `client_secret_basic`
 * credentials (RFC 6749 §2.3.1 requires the encoding, and openid-client applies it: `-` becomes `%2D`), so a client
 * id with `-` is refused there; with `authMethod: "client_secret_post"` the same client id signs in.
 */
describe('glewlwyd as an upstream OpenID Provider, a client id with "-"', { skip: glewlwydSkipReason() }, () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let glewlwyd: GlewlwydUpstream;
  let app: OidcApp;
  let orgId: string;
  let owner: { userId: string; token: string };

  before(async () => {
    glewlwyd = await startGlewlwydUpstream();
    for (const user of [ADA, GRACE]) await glewlwyd.addUser(user.username, user.password);
    orgId = (await createOrg(svc)).id;
    owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    app = await createOidcApp(svc, await createProject(svc, orgId), { authMethod: 'client_secret_basic' });
  });
  after(() => glewlwyd?.stop());

  /** An IdP for glewlwyd (a client id with `-` unless told), registered there for that one method; JIT by `sub`. */
  const addIdp = async (authMethod: 'client_secret_post' | 'client_secret_basic', clientId = `portcullis-${authMethod.replaceAll('_', '-')}`) => {
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/idps`, {
      token: owner.token,
      body: {
        type: 'oidc',
        name: `glewlwyd ${authMethod}`,
        issuer: glewlwyd.issuer,
        clientId,
        clientSecret: SECRET,
        authMethod,
        scopes: [],
        claims: { userName: 'sub' },
        jit: true,
      },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal((await svc.api('GET', `/management/v1/orgs/${orgId}/idps/${res.body.id}`, { token: owner.token })).body.authMethod, authMethod);
    await glewlwyd.addClient({ clientId, secret: SECRET, redirectUri: res.body.callbackUrl, authMethods: [authMethod] });
    return { idpId: res.body.id as string, clientId };
  };

  const signIn = async (idp: { idpId: string; clientId: string }, user = ADA) => {
    const browser = new FederatedBrowser(svc, new URL(glewlwyd.issuer).origin);
    const toUpstream = await browser.choose(await browser.authorize(app), idp.idpId);
    assert.equal(toUpstream.status, 303, toUpstream.text.slice(0, 300));
    const answer = await glewlwyd.authorize(toUpstream.location!, idp.clientId, user.username, user.password);
    assert.equal(answer.status, 302, `glewlwyd's authorization endpoint: ${answer.status} ${answer.location}`);
    return { browser, page: await browser.walk({ status: answer.status, headers: new Headers(), text: '', location: answer.location }) };
  };

  it('client_secret_post: the client id with "-" signs in, the user created just in time', async () => {
    const idp = await addIdp('client_secret_post');
    const { browser, page } = await signIn(idp);
    const claims = await browser.tokens(app, page);
    assert.deepEqual(claims.amr, ['fed']);
    const identities = await svc.api('GET', `/management/v1/orgs/${orgId}/users/${claims.sub}/identities`, { token: owner.token });
    assert.deepEqual(
      identities.body.identities.map((i: { idpId: string }) => i.idpId),
      [idp.idpId],
    );
  });

  it('client_secret_basic: glewlwyd refuses the form-encoded client id, so the sign-in fails (why the docs say client_secret_post)', async () => {
    const idp = await addIdp('client_secret_basic');
    const users = await countRows(svc, 'users');
    const { page } = await signIn(idp);
    assert.ok(!page.location, `no sign-in: ${page.status} ${page.location}`);
    assert.match(page.text, /data-error="/);
    assert.equal(await countRows(svc, 'users'), users);
    const failed = await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idp.idpId });
    assert.equal(failed.length, 1);
  });

  it('the control: client_secret_basic signs in with a client id without "-" (it is the encoding glewlwyd misreads)', async () => {
    const idp = await addIdp('client_secret_basic', 'portcullisbasic');
    const { browser, page } = await signIn(idp, GRACE);
    assert.deepEqual((await browser.tokens(app, page)).amr, ['fed']);
  });
});
