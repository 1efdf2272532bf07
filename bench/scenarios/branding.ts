/**
 * A branded sign-in page against an unbranded one (docs/branding.md): the same login page of two applications of
 * one service, one whose organization has a brand (colours light and dark, a logo, a display name, links and an
 * overridden text), one without, in alternating rounds (median of three in the full run). The brand costs a small
 * read, kept for 500 ms, and a few lines of HTML; goal: the branded page at most 1.05× the time of the unbranded one
 * (rate ratio unbranded ÷ branded). The brand's stylesheet and logo are separate URLs a browser keeps for a year.
 */
import sharp from 'sharp';
import { LoginClient } from '../../test/attack/support/login-client.js';
import { adminToken, call, publicSignInApp } from '../lib/api.js';
import type { Context } from '../lib/context.js';
import { load } from '../lib/load.js';
import { freePort, startService } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';
import { alternating } from './oidc.js';

export const BRANDED = { scenario: 'branding.login-page', label: 'login page, branded against unbranded' };
/** The goal: a branded page takes at most this many times an unbranded one's. */
export const BRANDING_GOAL = 1.05;
const REDIRECT = 'http://127.0.0.1:65529/cb';

export async function runBranding(ctx: Context): Promise<void> {
  const { seconds } = ctx.options;
  const rounds = ctx.options.quick ? 1 : 3;
  const store = await ctx.newStore();
  let service: Running | undefined;
  try {
    service = await startService(store, 1, await freePort());
    const url = service.url;
    const admin = adminToken(store.dataDir);
    const app = (name: string) => publicSignInApp(url, admin, name, REDIRECT);
    const branded = await app('branding-bench-branded');
    const plain = await app('branding-bench-plain');
    const logo = await sharp(Buffer.alloc(160 * 40 * 3, 0x7a), { raw: { width: 160, height: 40, channels: 3 } })
      .png()
      .toBuffer();
    await call(url, admin, 'PUT', `/management/v1/orgs/${branded.orgId}/branding`, {
      displayName: 'Acme',
      logo: `data:image/png;base64,${logo.toString('base64')}`,
      colors: { primary: '#7a1f5c', onPrimary: '#ffffff', background: '#fbf7f9', surface: '#ffffff', text: '#1e1a1c', link: '#7a1f5c' },
      dark: { primary: '#f0a8d0', onPrimary: '#1a0a12', background: '#120a0e', surface: '#1c1218', text: '#f5e9ef', link: '#f0a8d0' },
      links: { privacy: 'https://acme.example/privacy', terms: 'https://acme.example/terms' },
      texts: { en: { 'login.title': 'Sign in to Acme' } },
    });
    const page = async (clientId: string, isBranded: boolean) => {
      const browser = new LoginClient(url);
      const { uid, page: first } = await browser.startLogin({
        client_id: clientId,
        redirect_uri: REDIRECT,
        response_type: 'code',
        scope: 'openid',
        state: 'b',
        // RFC 7636: a public client's authorization needs a challenge; this one (RFC 7636, appendix B) is never redeemed.
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      if (first.text.includes('data-brand-stylesheet') !== isBranded)
        throw new Error(`branding: the ${isBranded ? '' : 'un'}branded page is not what it should be`);
      const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      return [{ method: 'GET', path: `/ui/login/${uid}`, headers: { cookie, 'accept-language': 'en' } }];
    };
    const requests = { branded: await page(branded.clientId, true), plain: await page(plain.clientId, false) };
    const measure =
      (which: keyof typeof requests, s = seconds) =>
      async () => {
        const { socketErrors: _, ...figures } = await load(url, service!.pid, { seconds: s, warmup: 0 }, requests[which]);
        return figures;
      };
    if (!ctx.options.quick) for (const warm of [measure('branded', ctx.options.warmup), measure('plain', ctx.options.warmup)]) await warm();
    const [mine, peer] = await alternating(rounds, [measure('branded'), measure('plain')]);
    ctx.record({ ...BRANDED, kind: 'portcullis', server: 'Portcullis WORKERS=1, branded', workers: 1, unit: 'req/s', ...mine });
    ctx.record({ ...BRANDED, kind: 'peer', server: 'Portcullis WORKERS=1, unbranded', nextTo: 1, unit: 'req/s', ...peer });
    const ratio = peer.rate / mine.rate;
    console.error(`  branding: branded page ${ratio.toFixed(3)}× the time of the unbranded (goal ≤ ${BRANDING_GOAL}×)`);
  } finally {
    await service?.stop();
    await store.drop();
  }
}
