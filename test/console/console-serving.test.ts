import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { get as httpGet } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DESIGN_STYLESHEET_PATH } from '../../src/common/design/design-stylesheet.js';
import { CONSOLE_DIR } from '../../src/console/console.router.js';
import { createCaller, createOrg, useService } from '../support/fixtures.js';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
/** docs/console.md: the console's JS and CSS together, gzip-compressed. */
const BUDGET_BYTES = 300 * 1024;

/** How the service serves the operator console (docs/console.md); `npm run build` must have bundled it. */
describe('the operator console is served', () => {
  const svc = useService();
  const get = (path: string) => fetch(new URL(path, svc.url), { redirect: 'manual' });

  it('/ and /console redirect to /console/ (302)', async () => {
    for (const path of ['/', '/console']) {
      const res = await get(path);
      assert.equal(res.status, 302, path);
      assert.equal(res.headers.get('location'), '/console/', path);
    }
  });

  it('/console/, the callback and deep links answer index.html with the CSP, never cached without revalidation', async () => {
    for (const path of ['/console/', '/console/callback?code=x&state=y', '/console/orgs/123/users/456']) {
      const res = await get(path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      assert.equal(res.headers.get('content-security-policy'), CSP, path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      const html = await res.text();
      assert.match(html, /<div id="app"><\/div>/);
      // Nothing inline: the CSP would block it, and nothing from another host.
      assert.doesNotMatch(html, /<script>|<style|style=|https?:\/\//);
    }
  });

  it('serves the hashed assets it names with a year-long immutable cache, and 404 for any other asset name', async () => {
    const html = await (await get('/console/')).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    assert.equal(assets.length, 2, 'one script and one style sheet');
    for (const asset of assets) {
      const res = await get(asset);
      assert.equal(res.status, 200, asset);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.match(res.headers.get('content-type') ?? '', asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      assert.match(asset, /-[A-Z0-9]{8}\.(js|css)$/, 'the name carries the content hash');
    }
    for (const path of [
      '/console/assets/nothing-12345678.js',
      '/console/assets/..%2Findex.html',
      '/console/assets/sub/main.js',
      '/console/assets/index.html',
    ]) {
      assert.equal((await get(path)).status, 404, path);
    }
  });

  it('sends the page, its assets and the design stylesheet gzip-compressed to a browser that takes gzip, and as they are otherwise', async () => {
    const html = await (await get('/console/')).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
    for (const path of ['/console/', ...assets, DESIGN_STYLESHEET_PATH]) {
      const plain = await raw(path, 'identity');
      assert.equal(plain.headers['content-encoding'], undefined, path);
      assert.equal(plain.headers.vary, 'Accept-Encoding', path);
      const packed = await raw(path, 'gzip, deflate, br');
      assert.equal(packed.headers['content-encoding'], 'gzip', path);
      assert.equal(packed.headers.vary, 'Accept-Encoding', path);
      assert.equal(Number(packed.headers['content-length']), packed.body.length, path);
      assert.ok(packed.body.length < plain.body.length, `${path}: ${packed.body.length} bytes compressed, ${plain.body.length} raw`);
      assert.deepEqual(gunzipSync(packed.body), plain.body, `${path}: the same bytes`);
      assert.equal(packed.headers['content-type'], plain.headers['content-type'], path);
    }
  });

  /** The bytes as sent, which fetch would decompress: node:http leaves them alone. */
  function raw(path: string, acceptEncoding: string): Promise<{ headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      httpGet(new URL(path, svc.url), { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
  }

  it('keeps the bundle (JS and CSS, gzip) under 300 KB', () => {
    const dir = join(CONSOLE_DIR, 'assets');
    const files = readdirSync(dir).filter((name) => /\.(js|css)$/.test(name));
    const size = files.reduce((sum, name) => sum + gzipSync(readFileSync(join(dir, name)), { level: 9 }).length, 0);
    assert.ok(files.length >= 2, 'the bundle was built');
    assert.ok(size < BUDGET_BYTES, `bundle is ${size} bytes gzip`);
  });

  it('leaves the API alone: other paths still reach their routes', async () => {
    assert.equal((await get('/healthz')).status, 200);
    assert.equal((await get('/consolex')).status, 404);
  });

  // The console decides what to show from these roles; every call it then makes is authorized by its route.
  it('GET /auth/v1/users/me tells any caller its own organization and roles, and nothing without a token', async () => {
    assert.equal((await get('/auth/v1/users/me')).status, 401);
    const org = await createOrg(svc);
    const manager = await createCaller(svc, org.id, { org: ['ORG_USER_MANAGER'] });
    const res = await svc.api('GET', '/auth/v1/users/me', { token: manager.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, {
      userId: manager.userId,
      orgId: org.id,
      userType: 'machine',
      instanceRoles: [],
      orgRoles: [{ orgId: org.id, roles: ['ORG_USER_MANAGER'] }],
    });
    const admin = await svc.api('GET', '/auth/v1/users/me', { token: svc.adminToken });
    assert.deepEqual(admin.body.instanceRoles, ['IAM_OWNER']);
    const plain = await createCaller(svc, org.id);
    const none = await svc.api('GET', '/auth/v1/users/me', { token: plain.token });
    assert.deepEqual({ instanceRoles: none.body.instanceRoles, orgRoles: none.body.orgRoles }, { instanceRoles: [], orgRoles: [] });
  });
});
