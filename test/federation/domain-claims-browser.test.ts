import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../oidc/support/browser.js';
import { PASSWORD } from '../oidc/support/oidc-fixtures.js';
import { createOrg, unique, useService } from '../support/fixtures.js';
import { consoleSteps } from '../console/support/console-browser.js';
import { verifiedDomain } from './support/domains.js';
import { startUpstreamIdp } from './support/upstream-idp.js';
import type { UpstreamIdp } from './support/upstream-idp.js';

/**
 * Organization domains in Chromium (docs/federation.md, "Organization domains"): organization B's owner tries, in
 * the console, to make organization A's login domain lead to B's identity provider, and is refused; B's IdP claims a
 * domain B verified, and a claim on A's domain left in the database by an older version; A's person, typing the login
 * name at the console, still gets the password step here, never B's upstream.
 */
describe('a domain never leads away from its organization (Chromium)', () => {
  const svc = useService({ PUBLIC_URL: 'http://localhost:{port}', OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true' });
  let browser: Browser;
  let upstream: UpstreamIdp;
  let base: string;
  let orgA: { id: string; primaryDomain: string };
  let orgB: { id: string; primaryDomain: string };
  let domainB: string;
  const ann = unique('ann');
  const bea = unique('bea');

  const human = async (orgId: string, userName: string) => {
    const res = await svc.api('POST', `/management/v1/orgs/${orgId}/users/human`, {
      token: svc.adminToken,
      body: {
        userName,
        profile: { firstName: 'Test', lastName: 'Person' },
        email: { email: `${userName}@example.com`, isEmailVerified: true },
        password: PASSWORD,
      },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.userId as string;
  };

  before(async () => {
    [browser, upstream] = await Promise.all([launchBrowser(), startUpstreamIdp({})]);
    base = svc.config.publicUrl.replace(/\/$/, '');
    [orgA, orgB] = [await createOrg(svc), await createOrg(svc)];
    await human(orgA.id, ann);
    const owner = await svc.api('PUT', `/management/v1/orgs/${orgB.id}/members/${await human(orgB.id, bea)}`, {
      token: svc.adminToken,
      body: { roles: ['ORG_OWNER'] },
    });
    assert.equal(owner.status, 200, owner.text);
    domainB = await verifiedDomain(svc, orgB.id, `${unique('b-corp')}.example`);
    const idp = await svc.api('POST', `/management/v1/orgs/${orgB.id}/idps`, {
      token: svc.adminToken,
      body: { type: 'oidc', name: 'B upstream', issuer: upstream.issuer, clientId: 'b-rp', clientSecret: 'b-secret-4d1e', domains: [domainB] },
    });
    assert.equal(idp.status, 201, idp.text);
    upstream.addClient({ client_id: 'b-rp', client_secret: 'b-secret-4d1e', redirect_uris: [idp.body.callbackUrl] });
    // A claim written before domains were verified (the upgrade removes such rows; discovery must not need it to).
    await svc.dataSource.query('INSERT INTO idp_domains (domain, idp_id) VALUES (?, ?)', [orgA.primaryDomain, idp.body.id]);
  });

  after(async () => {
    await browser?.close();
    await upstream?.close();
  });

  const { open, signIn, check } = consoleSteps({ browser: () => browser, base: () => base });

  it('B’s owner adds a domain in the console, reads its challenge, cannot verify it unpublished, and removes it', async () => {
    const { context, page } = await open();
    const domain = `${unique('pending')}.example`;
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, `${bea}@${orgB.primaryDomain}`, PASSWORD);
      await page.goto(`${base}/console/orgs/${orgB.id}/users`);
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Domains' }).click();
      await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
      const form = page.getByRole('form', { name: 'Add domain' });
      await form.getByLabel('Domain').fill(domain);
      await form.getByRole('button', { name: 'Add domain' }).click();
      const row = page.getByRole('table', { name: 'Domains' }).getByRole('row').filter({ hasText: domain });
      await row.getByText(`_portcullis-challenge.${domain}`).waitFor();
      await check(page, 'org-domains');
      await row.getByRole('button', { name: 'Verify' }).click();
      await row.getByRole('alert').filter({ hasText: 'Error 409' }).waitFor();
      const [stored] = await svc.dataSource.query('SELECT verified_at FROM org_domains WHERE domain = ?', [domain]);
      assert.equal(stored.verified_at, null);
      await row.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('button', { name: 'Yes, delete' }).click();
      await row.waitFor({ state: 'detached' });
      assert.deepEqual(await svc.dataSource.query('SELECT domain FROM org_domains WHERE domain = ?', [domain]), []);
    } finally {
      await context.close();
    }
  });

  it('B’s owner naming A’s domain for an IdP in the console is refused, and nothing is stored', async () => {
    const { context, page } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, `${bea}@${orgB.primaryDomain}`, PASSWORD);
      await page.goto(`${base}/console/orgs/${orgB.id}/users`);
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Identity providers' }).click();
      const form = page.getByRole('form', { name: 'Add identity provider' });
      await form.getByLabel('Name', { exact: true }).fill('Look-alike');
      await form.getByLabel('Issuer').fill(upstream.issuer);
      await form.getByLabel('Client ID').fill('look-alike');
      await form.getByLabel('Client secret').fill('look-alike-secret');
      await form.getByLabel('Domains for home-realm discovery (comma-separated, optional)').fill(orgA.primaryDomain);
      await form.getByRole('button', { name: 'Add identity provider' }).click();
      await form.getByRole('alert').filter({ hasText: 'Error 400' }).waitFor();
      const idps = (await svc.api('GET', `/management/v1/orgs/${orgB.id}/idps`, { token: svc.adminToken })).body.idps as { name: string }[];
      assert.deepEqual(
        idps.map((i) => i.name),
        ['B upstream'],
      );
    } finally {
      await context.close();
    }
  });

  it('A’s person typing the login name at the console gets the password step here and signs in; a name of B’s verified domain goes to B’s upstream', async () => {
    const { context, page } = await open();
    try {
      await page.goto(`${base}/console/`);
      await signIn(page, `${ann}@${orgA.primaryDomain}`, PASSWORD);
      assert.equal(new URL(page.url()).origin, base, 'signed in at the console, never at the upstream');
    } finally {
      await context.close();
    }
    const control = await open();
    try {
      await control.page.goto(`${base}/console/`);
      await control.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await control.page.waitForURL((url) => url.pathname.startsWith('/ui/login'));
      await control.page.getByLabel('Login name').fill(`dana@${domainB}`);
      const next = control.page.getByRole('button', { name: 'Next' });
      await ((await next.isVisible()) ? next : control.page.getByRole('button', { name: 'Sign in' })).click();
      await control.page.waitForURL((url) => url.origin === upstream.issuer);
    } finally {
      await control.context.close();
    }
  });
});
