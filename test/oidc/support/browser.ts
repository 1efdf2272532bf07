import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';

/** Debian's Chromium, headless, as CI installs it. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface Callback {
  url: URL;
  method: string;
  /** form_post: the posted parameters. */
  form?: URLSearchParams;
}

export interface RelyingParty {
  /** Base URL: register `${url}/cb` and `${url}/logged-out`. */
  url: string;
  callbacks: Callback[];
  next(): Promise<Callback>;
  close(): Promise<void>;
}

/** The relying party's redirect and logout endpoints: a loopback server recording what arrives. */
export async function startRelyingParty(): Promise<RelyingParty> {
  const callbacks: Callback[] = [];
  const waiters: ((cb: Callback) => void)[] = [];
  const server = createServer((req, res) => {
    // Browsers ask for a favicon on their own; that is no callback.
    if (req.url === '/favicon.ico') return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
      const callback: Callback = {
        url,
        method: req.method ?? 'GET',
        ...(req.method === 'POST' ? { form: new URLSearchParams(Buffer.concat(chunks).toString()) } : {}),
      };
      callbacks.push(callback);
      waiters.shift()?.(callback);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><title>relying party</title>');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    callbacks,
    next: () => new Promise<Callback>((resolve) => waiters.push(resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function newPage(browser: Browser, options: { locale?: string } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ locale: options.locale ?? 'en-US' });
  return { context, page: await context.newPage() };
}

/** Fills the login form by its stable field names (docs/product-rules.md, "OpenID Connect and OAuth") and submits it. */
export async function submitLogin(page: Page, loginName: string | undefined, password: string, options: { declineMfaOffer?: boolean } = {}): Promise<void> {
  if (loginName !== undefined) await page.fill('input[name="loginName"]', loginName);
  await page.fill('input[name="password"]', password);
  await submitForm(page, 'login', options);
}

/** Submits the page's form of a first factor (`login`, `register`, an expired directory password's change), declining an enrolment offer unless told otherwise. */
export async function submitForm(page: Page, step: 'login' | 'register' | 'directory-password', options: { declineMfaOffer?: boolean } = {}): Promise<void> {
  const posted = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith(`/${step}`));
  await page.click('button[type="submit"]');
  if (options.declineMfaOffer === false) return;
  await declineMfaOffer(page, await posted);
}

/**
 * Like a user who clicks "Not now": after a first factor, the login UI may offer to enrol a second one
 * (policy `optional`, a user without factors); tests that are not about enrolment decline it.
 */
async function declineMfaOffer(page: Page, posted: Response): Promise<void> {
  const uidPage = /^(\/ui\/login\/[^/]+)\/[a-z-]+$/.exec(new URL(posted.url()).pathname)?.[1];
  if (posted.status() !== 303 || posted.headers().location !== uidPage) return;
  await page.waitForURL((url) => url.pathname === uidPage);
  const skip = await page.$('[data-mfa-skip]');
  if (skip) await skip.click();
}

/** Opens a URL, runs the UI steps and waits for what reaches the relying party (query, fragment or form_post). */
export async function authorize(
  rp: RelyingParty,
  page: Page,
  url: URL | string,
  steps: (page: Page) => Promise<void> = async () => undefined,
): Promise<Callback> {
  const arrived = rp.next();
  await page.goto(String(url)).catch((error: Error) => {
    // A previous form_post page may still be submitting; the new navigation wins all the same.
    if (!error.message.includes('interrupted by another navigation')) throw error;
  });
  await steps(page);
  const cb = await withTimeout(arrived, 15_000, 'the redirect URI was not reached');
  if (cb.method === 'GET' && cb.url.search === '') {
    // A fragment is never sent in a request: read it from the address the browser shows.
    const target = cb.url.origin + cb.url.pathname;
    for (let i = 0; i < 100 && !(page.url().startsWith(target) && page.url().includes('#')); i++) await new Promise((r) => setTimeout(r, 50));
    cb.url = new URL(page.url());
  }
  return cb;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([promise, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

/** Parameters of a callback: the posted form, or the fragment (implicit), or the query. */
export function callbackParams(cb: Callback): URLSearchParams {
  if (cb.form) return cb.form;
  if (cb.url.hash.length > 1) return new URLSearchParams(cb.url.hash.slice(1));
  return cb.url.searchParams;
}

/**
 * Chromium's virtual platform authenticator on `page` (WebAuthn over the DevTools protocol): resident keys, user
 * verification, presence simulated. It answers a page's conditional (autofill) request at once, as a person picking
 * the passkey from the login name field would.
 */
export async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}
