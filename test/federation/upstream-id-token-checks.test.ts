import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countRows, createCaller, createOrg, searchEvents, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';
import { FederatedBrowser } from './support/federated-browser.js';
import { startForgingUpstream } from './support/forging-upstream.js';
import type { ForgingUpstream, Forgery } from './support/forging-upstream.js';

/**
 * docs/federation.md, "Refusals": an upstream whose ID token is unsigned, signed by a key it does not
 * publish, for another issuer or audience, with another nonce, expired or not yet valid is refused with a page and
 * a `user.idp.login.failed` event, and nothing is created. The honest token of the same upstream signs in (JIT).
 */
describe('upstream ID token checks', () => {
  const svc = useService({ OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let forger: ForgingUpstream;
  let app: OidcApp;
  let idpId: string;

  before(async () => {
    forger = await startForgingUpstream('portcullis');
    const org = await createOrg(svc);
    const owner = await createCaller(svc, org.id, { org: ['ORG_OWNER'] });
    app = await createOidcApp(svc, await createProject(svc, org.id), { authMethod: 'client_secret_basic' });
    const res = await svc.api('POST', `/management/v1/orgs/${org.id}/idps`, {
      token: owner.token,
      body: { type: 'oidc', name: 'Forger', issuer: forger.issuer, clientId: forger.clientId, clientSecret: 'forger-secret', jit: true },
    });
    assert.equal(res.status, 201, res.text);
    idpId = res.body.id;
  });

  after(() => forger?.close());

  const signIn = async (forgery: Forgery) => {
    forger.forgery = forgery;
    const browser = new FederatedBrowser(svc, forger.issuer);
    return { browser, page: await browser.walk(await browser.choose(await browser.authorize(app), idpId)) };
  };

  it('the honest token signs in (the control: the refusals below are the checks, not a broken harness)', async () => {
    const { browser, page } = await signIn('honest');
    const claims = await browser.tokens(app, page);
    assert.deepEqual(claims.amr, ['fed']);
  });

  for (const forgery of ['alg-none', 'other-key', 'wrong-iss', 'wrong-aud', 'wrong-nonce', 'expired', 'future'] as const) {
    it(`refuses an ID token: ${forgery}`, async () => {
      const users = await countRows(svc, 'users');
      const seen = new Set((await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idpId })).map((e) => e.sequence));
      const { page } = await signIn(forgery);
      assert.equal(page.status, 400, `${page.status} ${page.text.slice(0, 300)}`);
      assert.match(page.text, /data-error="invalid_response"/);
      assert.equal(await countRows(svc, 'users'), users, 'nobody is created');
      const added = (await searchEvents(svc, { event_types: ['user.idp.login.failed'], aggregate_id: idpId })).filter((e) => !seen.has(e.sequence));
      assert.deepEqual(
        added.map((e) => e.payload.reason),
        ['invalid_response'],
      );
    });
  }
});
