import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import sharp from 'sharp';
import { createCaller, searchEvents, useService } from '../support/fixtures.js';
import { createOidcApp, createProject } from '../oidc/support/oidc-fixtures.js';
import type { OidcApp } from '../oidc/support/oidc-fixtures.js';

const png = async (width: number, height: number, noise = false) => {
  const raw = noise ? randomBytes(width * height * 3) : Buffer.alloc(width * height * 3, 0x40);
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
};
const dataUrl = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;
const GOOD = { primary: '#7a1f5c', onPrimary: '#ffffff', background: '#fbf7f9', surface: '#ffffff', text: '#1e1a1c', link: '#7a1f5c' };

/**
 * The branding API (docs/branding.md) on the started service: who may read and write which brand, what a document
 * may hold (bounds, colours, contrast, images, links, texts), that images are re-encoded and texts stay text, and
 * that each change is an event.
 */
describe('branding API', () => {
  const svc = useService();
  let orgA: { orgId: string; projectId: string };
  let orgB: { orgId: string; projectId: string };
  let appA: OidcApp;
  let appB: OidcApp;
  let ownerA: { userId: string; token: string };
  let managerA: { userId: string; token: string };
  let ownerB: { userId: string; token: string };

  before(async () => {
    orgA = await createProject(svc);
    orgB = await createProject(svc);
    appA = await createOidcApp(svc, orgA, { authMethod: 'none' });
    appB = await createOidcApp(svc, orgB, { authMethod: 'none' });
    ownerA = await createCaller(svc, orgA.orgId, { org: ['ORG_OWNER'] });
    managerA = await createCaller(svc, orgA.orgId, { org: ['ORG_USER_MANAGER'] });
    ownerB = await createCaller(svc, orgB.orgId, { org: ['ORG_OWNER'] });
  });

  const orgPath = (orgId: string) => `/management/v1/orgs/${orgId}/branding`;
  const appPath = (app: OidcApp) => `/management/v1/orgs/${app.orgId}/projects/${app.projectId}/apps/${app.appId}/branding`;
  const put = (path: string, token: string, body: unknown) => svc.api('PUT', path, { token, body });

  it('answers each route by role and organization: the privilege rows', async () => {
    const rows: [string, string, (t: string) => Promise<{ status: number }>, number][] = [
      ['IAM_OWNER reads the instance brand', 'admin', (t) => svc.api('GET', '/admin/v1/branding', { token: t }), 200],
      ['ORG_OWNER may not read the instance brand', 'ownerA', (t) => svc.api('GET', '/admin/v1/branding', { token: t }), 403],
      ['ORG_OWNER may not set the instance brand', 'ownerA', (t) => put('/admin/v1/branding', t, { displayName: 'x' }), 403],
      ['ORG_USER_MANAGER may not set its organization brand', 'managerA', (t) => put(orgPath(orgA.orgId), t, { displayName: 'x' }), 403],
      ['ORG_USER_MANAGER may not read its organization brand', 'managerA', (t) => svc.api('GET', orgPath(orgA.orgId), { token: t }), 403],
      ['ORG_USER_MANAGER may not remove its application brand', 'managerA', (t) => svc.api('DELETE', appPath(appA), { token: t }), 403],
      ['ORG_OWNER of A sets A', 'ownerA', (t) => put(orgPath(orgA.orgId), t, { displayName: 'Org A' }), 200],
      ['ORG_OWNER of A reads A', 'ownerA', (t) => svc.api('GET', orgPath(orgA.orgId), { token: t }), 200],
      ['ORG_OWNER of A sets its application', 'ownerA', (t) => put(appPath(appA), t, { displayName: 'App A' }), 200],
      ['ORG_OWNER of A reads its application', 'ownerA', (t) => svc.api('GET', appPath(appA), { token: t }), 200],
      ['ORG_OWNER of B sets B', 'ownerB', (t) => put(orgPath(orgB.orgId), t, { displayName: 'Org B' }), 200],
      ['ORG_OWNER of A cannot read B', 'ownerA', (t) => svc.api('GET', orgPath(orgB.orgId), { token: t }), 404],
      ['ORG_OWNER of A cannot write B', 'ownerA', (t) => put(orgPath(orgB.orgId), t, { displayName: 'stolen' }), 404],
      ['ORG_OWNER of A cannot remove B', 'ownerA', (t) => svc.api('DELETE', orgPath(orgB.orgId), { token: t }), 404],
      ['ORG_OWNER of A cannot read B’s application', 'ownerA', (t) => svc.api('GET', appPath(appB), { token: t }), 404],
      ['ORG_OWNER of A cannot write B’s application', 'ownerA', (t) => put(appPath(appB), t, { displayName: 'stolen' }), 404],
      [
        'ORG_OWNER of A cannot name B’s application under A',
        'ownerA',
        (t) => put(`/management/v1/orgs/${orgA.orgId}/projects/${orgA.projectId}/apps/${appB.appId}/branding`, t, { displayName: 'stolen' }),
        404,
      ],
      ['ORG_OWNER of A cannot remove B’s application brand', 'ownerA', (t) => svc.api('DELETE', appPath(appB), { token: t }), 404],
      ['no token', 'none', (t) => svc.api('GET', orgPath(orgA.orgId), { token: t }), 401],
      ['any administrator lists the text keys', 'managerA', (t) => svc.api('GET', '/admin/v1/branding/text-keys', { token: t }), 200],
    ];
    const tokens: Record<string, string> = { admin: svc.adminToken, ownerA: ownerA.token, managerA: managerA.token, ownerB: ownerB.token, none: '' };
    for (const [what, who, call, status] of rows) assert.equal((await call(tokens[who])).status, status, what);
    const b = await svc.api('GET', orgPath(orgB.orgId), { token: ownerB.token });
    assert.equal(b.body.displayName, 'Org B', 'B kept its own brand');
  });

  it('refuses a colour not written #rrggbb, naming the field, and changes nothing', async () => {
    for (const colour of ['red', '#fff', 'rgb(0,0,0)', '#12345g', '#000000; background: url(x)']) {
      const res = await put(orgPath(orgA.orgId), ownerA.token, { colors: { ...GOOD, primary: colour } });
      assert.equal(res.status, 400, colour);
      assert.match(res.body.message, /colors\.primary/);
    }
    const unknown = await put(orgPath(orgA.orgId), ownerA.token, { colors: { ...GOOD, shadow: '#000000' } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /colors\.shadow/);
    assert.equal((await svc.api('GET', orgPath(orgA.orgId), { token: ownerA.token })).body.displayName, 'Org A');
  });

  it('refuses a palette below WCAG 2.2 AA, naming the pair', async () => {
    const text = await put(orgPath(orgA.orgId), ownerA.token, { colors: { ...GOOD, text: '#9a9a9a' } });
    assert.equal(text.status, 400);
    assert.match(text.body.message, /colors\.text\/colors\.surface: contrast [\d.]+:1 is below the 4\.5:1/);
    const button = await put(orgPath(orgA.orgId), ownerA.token, { colors: { ...GOOD, onPrimary: '#f06aa0', primary: '#ff7ab0' } });
    assert.equal(button.status, 400);
    assert.match(button.body.message, /colors\.onPrimary\/colors\.primary/);
    const control = await put(orgPath(orgA.orgId), ownerA.token, { colors: { ...GOOD, primary: '#d8d8d8', onPrimary: '#000000', link: '#1d4ed8' } });
    assert.equal(control.status, 400);
    assert.match(control.body.message, /colors\.primary\/colors\.surface: contrast [\d.]+:1 is below the 3:1/);
    const dark = await put(orgPath(orgA.orgId), ownerA.token, { colors: GOOD, dark: { text: '#303030' } });
    assert.equal(dark.status, 400);
    assert.match(dark.body.message, /dark\.text\/dark\.surface/);
    const ok = await put(orgPath(orgA.orgId), ownerA.token, { displayName: 'Org A', colors: GOOD, dark: { primary: '#f0a8d0', onPrimary: '#1a0a12' } });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.colors, GOOD);
  });

  it('refuses SVG, oversized and undecodable images; re-encodes a good one', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const cases: [string, string, RegExp][] = [
      ['svg', dataUrl('image/svg+xml', svg), /SVG is not accepted/],
      ['svg claimed as png', dataUrl('image/png', svg), /not a image\/png image/],
      ['wide', dataUrl('image/png', await png(1100, 8)), /larger than 1024 px/],
      ['heavy', dataUrl('image/png', await png(320, 320, true)), /more than 256 KB/],
      [
        'undecodable',
        dataUrl('image/png', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200)])),
        /cannot be decoded/,
      ],
      ['jpeg', dataUrl('image/jpeg', Buffer.from([0xff, 0xd8, 0xff])), /not accepted/],
      ['not a data URL', 'https://example.com/logo.png', /data URL/],
    ];
    for (const [what, logo, message] of cases) {
      const res = await put(orgPath(orgA.orgId), ownerA.token, { logo });
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      assert.match(res.body.message, /^logo/, what);
      assert.match(res.body.message, message, what);
    }
    // A PNG with bytes after its end (a polyglot's usual hiding place) comes back without them.
    const sent = Buffer.concat([await png(32, 16), Buffer.from('<script>alert(1)</script>')]);
    const webp = await sharp(await png(20, 20))
      .webp()
      .toBuffer();
    const res = await put(appPath(appA), ownerA.token, { logo: dataUrl('image/png', sent), icon: dataUrl('image/webp', webp) });
    assert.equal(res.status, 200, res.text);
    const stored = Buffer.from(String(res.body.logo).replace('data:image/png;base64,', ''), 'base64');
    assert.notDeepEqual(stored, sent);
    assert.equal(stored.includes('<script>'), false);
    const meta = await sharp(stored).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', 32, 16]);
    assert.match(String(res.body.icon), /^data:image\/png;base64,/);
  });

  it('takes https links only, texts of known keys and languages, and known fonts and languages', async () => {
    const refusals: [unknown, RegExp][] = [
      [{ links: { privacy: 'javascript:alert(1)' } }, /links\.privacy must be an https URL/],
      [{ links: { terms: 'http://example.com/terms' } }, /links\.terms must be an https URL/],
      [{ links: { home: 'https://example.com' } }, /links\.home/],
      [{ texts: { xx: { 'login.title': 'x' } } }, /texts\.xx/],
      [{ texts: { en: { 'login.nope': 'x' } } }, /texts\.en\.login\.nope/],
      [{ texts: { en: { 'login.title': 'Hi {secret}' } } }, /\{secret\} is not an argument/],
      [{ font: 'comic' }, /font/],
      [{ defaultLanguage: 'tlh' }, /defaultLanguage/],
      [{ displayName: 'x'.repeat(101) }, /displayName/],
      [{ style: 'body{}' }, /style/],
    ];
    for (const [body, message] of refusals) {
      const res = await put(orgPath(orgA.orgId), ownerA.token, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(res.body.message, message, JSON.stringify(body));
    }
  });

  it('lists the text keys with their English text', async () => {
    const res = await svc.api('GET', '/admin/v1/branding/text-keys', { token: managerA.token });
    assert.equal(res.status, 200);
    assert.ok(res.body.keys.some((k: { key: string; english: string }) => k.key === 'login.title' && k.english === 'Sign in'));
    assert.equal(res.body.locales.length, 12);
  });

  it('records each change as an event without the images', async () => {
    const res = await put(orgPath(orgB.orgId), ownerB.token, { displayName: 'Org B', logo: dataUrl('image/png', await png(8, 8)) });
    assert.equal(res.status, 200, res.text);
    assert.equal((await svc.api('DELETE', orgPath(orgB.orgId), { token: ownerB.token })).status, 204);
    assert.equal((await svc.api('GET', orgPath(orgB.orgId), { token: ownerB.token })).status, 404);
    assert.equal((await svc.api('DELETE', orgPath(orgB.orgId), { token: ownerB.token })).status, 404);
    const events = (await searchEvents(svc, { limit: 200 })).filter((e) => e.aggregate.id === orgB.orgId);
    const types = events.map((e) => e.type.type);
    assert.ok(types.includes('org.branding.changed'), types.join());
    assert.ok(types.includes('org.branding.removed'), types.join());
    assert.equal(JSON.stringify(events).includes('base64'), false, 'no image in an event');
  });
});
