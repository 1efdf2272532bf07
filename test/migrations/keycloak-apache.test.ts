import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { freePort } from '../support/service.js';
import { launchBrowser, newPage } from '../oidc/support/browser.js';
import { LOGGED_OUT_PATH, REDIRECT_PATH } from '../oidc/support/apache-config.js';
import { signInThroughApache } from '../oidc/support/apache-browser.js';
import { apacheSkipReason, startApache } from '../oidc/support/apache-server.js';
import type { ApacheRelyingParty } from '../oidc/support/apache-server.js';
import { keycloakClientSecret, keycloakRealm } from './support/keycloak-realm.js';
import type { SeedUser } from './support/keycloak-realm.js';

/**
 * The cut-over as an operator does it (docs/migrating.md): a realm export moves in, and an unmodified Apache with
 * mod_auth_openidc, configured with the Keycloak client's id and secret and only the new issuer, signs people in
 * with their old passwords and sees the `sub`, groups and roles Keycloak gave them.
 */
describe('moving in from Keycloak: Apache mod_auth_openidc keeps its client id and secret (Chromium)', { skip: apacheSkipReason() }, () => {
  const svc = useService();
  let browser: Browser;
  let apache: ApacheRelyingParty;
  let origin: string;
  let primaryDomain: string;
  let realm: Record<string, unknown>;
  const shopSecret = keycloakClientSecret();
  const seeds: SeedUser[] = [
    { username: 'alice', password: 'alice-Old-Passw0rd', hashing: 'pbkdf2-sha256', groups: ['/Engineering/Backend'], shopRoles: ['viewer'] },
    { username: 'bob', password: 'bob-Old-Passw0rd', hashing: 'argon2id', realmRoles: ['admin'], groups: ['/Sales'], shopRoles: ['manager'] },
  ];

  before(async () => {
    browser = await launchBrowser();
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    realm = await keycloakRealm(unique('apache').toLowerCase(), seeds, shopSecret);
    // The shop client is the Apache application: its redirect URI as Keycloak held it.
    const shop = (realm.clients as { clientId: string; redirectUris: string[]; attributes: Record<string, string> }[]).find((c) => c.clientId === 'shop')!;
    shop.clientId = unique('shop');
    const roles = realm.roles as { client: Record<string, unknown> };
    roles.client[shop.clientId] = roles.client.shop;
    for (const role of roles.client.shop as { composites?: { client?: Record<string, string[]> } }[])
      if (role.composites?.client?.shop) role.composites.client = { [shop.clientId]: role.composites.client.shop };
    for (const user of realm.users as { clientRoles?: Record<string, string[]> }[])
      if (user.clientRoles?.shop) user.clientRoles = { [shop.clientId]: user.clientRoles.shop };
    for (const group of realm.groups as { clientRoles?: Record<string, string[]> }[])
      if (group.clientRoles?.shop) group.clientRoles = { [shop.clientId]: group.clientRoles.shop };
    shop.redirectUris = [`${origin}${REDIRECT_PATH}`];
    shop.attributes['post.logout.redirect.uris'] = `${origin}${LOGGED_OUT_PATH}`;
    const org = await createOrg(svc);
    primaryDomain = org.primaryDomain;
    const res = await svc.api('POST', '/admin/v1/migrations', { token: svc.adminToken, body: { source: 'keycloak', document: realm, orgId: org.id } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.counts.client.created, 2, JSON.stringify(res.body.failures));
    // Keycloak's client authenticator takes the secret by Basic or in the body: Apache's default is Basic.
    const scope = 'openid email profile groups roles offline_access';
    apache = await startApache(svc.config.publicUrl, [{ method: 'client_secret_basic', clientId: shop.clientId, clientSecret: shopSecret, scope }], [port]);
  });
  after(async () => {
    await apache?.stop();
    await browser?.close();
  });

  const idOf = (username: string) => (realm.users as { id: string; username: string }[]).find((u) => u.username === username)!.id;

  it('signs each person in with the old password; the app sees the sub, groups and roles Keycloak gave them', async () => {
    const expected: Record<string, { groups: string[]; roles: string[] }> = {
      alice: { groups: ['/Engineering/Backend', 'role:developer'], roles: ['editor', 'viewer'] },
      bob: { groups: ['/Sales', 'role:admin', 'role:developer'], roles: ['editor', 'manager'] },
    };
    for (const seed of seeds) {
      const ui = await newPage(browser);
      try {
        const seen = await signInThroughApache(ui.page, origin, `${seed.username}@${primaryDomain}`, seed.password, { declineMfaOffer: true }).catch(
          (error: Error) => {
            throw new Error(`${error.message}\nApache's log:\n${apache.errorLog()}`);
          },
        );
        assert.equal(seen.OIDC_CLAIM_sub, idOf(seed.username), `${seed.username}: the sub Keycloak gave`);
        assert.equal(seen.OIDC_CLAIM_email, `${seed.username}@example.com`);
        // mod_auth_openidc joins a JSON array with commas (OIDCClaimDelimiter).
        assert.deepEqual((seen.OIDC_CLAIM_groups ?? '').split(',').filter(Boolean).sort(), expected[seed.username].groups, JSON.stringify(seen));
        assert.deepEqual((seen.OIDC_CLAIM_roles ?? '').split(',').filter(Boolean).sort(), expected[seed.username].roles, JSON.stringify(seen));
      } finally {
        await ui.context.close();
      }
    }
  });
});
