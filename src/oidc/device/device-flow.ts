import Provider, { errors } from 'oidc-provider';
import { clientAddress } from '../../common/http/client-address.js';
import type { OidcContext } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { SecretHasher } from '../../common/crypto/secret-hasher.js';
import type { UnitOfWork } from '../../common/database/unit-of-work.js';
import { organizationName } from '../../users/queries/organizations.js';
import { recordDevicePoll } from '../adapter/device-polls.js';
import { chooseLocale } from '../../texts/locales.js';
import type { Locale } from '../../texts/locales.js';
import { page, esc } from '../../login/login.views.js';
import { OIDC_ROUTES } from '../provider/oidc.routes.js';
import { isForm } from '../provider/extensions/request-body-replay.js';
import { LOGIN_PAGE_HEADERS } from '../../login/login-page.headers.js';
import { deviceMessages } from '../../login/device/device.messages.js';
import { confirmPage, deviceDeniedPage, deviceSuccessPage, userCodePage } from '../../login/device/device.views.js';
import type { DevicePageContext } from '../../login/device/device.views.js';

/** RFC 8628 §3.4: the grant type a device polls the token endpoint with. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** What the device flow needs of its surroundings. */
export interface DeviceFlowDeps {
  dataSource: DataSource;
  uow: UnitOfWork;
  hasher: SecretHasher;
  /** RFC 8628 §3.2 `interval`, seconds (DEVICE_POLL_INTERVAL_SECONDS). */
  pollIntervalSeconds: number;
  /** The login UI's per-IP limit (login-rate-limiter.ts): a user code is a guess like a password. */
  rateLimiter?: UserCodeLimiter;
}

/** The part of LoginRateLimiter the user code page uses: an attempt counted before the check, given back when the code was right. */
export interface UserCodeLimiter {
  reserve(ip: string): Promise<number | undefined>;
  release(ip: string): Promise<void>;
}

interface UserCodeError extends Error {
  userCode?: string;
}

/**
 * oidc-provider's `features.deviceFlow` (RFC 8628; docs/oauth-profiles.md, "Device authorization grant"): user codes
 * of 8 letters from the base-20 alphabet
 * without vowels (RFC 8628 §6.1: about 34 bits, typed as XXXX-XXXX), and the user's pages in the login UI's own
 * style, English and German (src/login/device/device.views.ts). The sign-in between confirmation and success is the login UI's.
 */
export function deviceFlowFeature(deps: DeviceFlowDeps) {
  return {
    enabled: true,
    charset: 'base-20',
    mask: '****-****',
    // The address the request came from, never a forwarded header (docs/product-rules.md, "Running it").
    deviceInfo: (ctx: OidcContext) => ({ ip: clientAddress(ctx.req), ua: ctx.get('user-agent') }),
    userCodeInputSource: (ctx: OidcContext, _form: string, _out?: unknown, err?: UserCodeError) => userCodeInput(ctx, err),
    userCodeConfirmSource: async (
      ctx: OidcContext,
      _form: string,
      client: { clientName?: string; clientId: string; [key: string]: unknown },
      _info: unknown,
      userCode: string,
    ) => {
      const org = (await organizationName(deps.dataSource, String(client.portcullis_org_id ?? ''))) ?? '';
      ctx.type = 'html';
      ctx.body = confirmPage(pageContext(ctx), client.clientName ?? client.clientId, org, userCode);
    },
    successSource: (ctx: OidcContext) => {
      const locale = localeOf(ctx);
      ctx.type = 'html';
      ctx.body = deviceSuccessPage(locale, deviceMessages(locale), ctx.oidc.client.clientName ?? ctx.oidc.client.clientId);
    },
  };
}

/** The user code page: empty, or with what was wrong with the code typed (oidc-provider's re-render errors). */
async function userCodeInput(ctx: OidcContext, err?: UserCodeError): Promise<void> {
  const pageCtx = pageContext(ctx);
  const { t } = pageCtx;
  ctx.type = 'html';
  if (err?.name === 'AbortedError') {
    // The user denied (no cause), or the sign-in was refused at whichever door it came in by (SignInFlow.refuse, its
    // description the cause's): the device hears access_denied (RFC 8628 §3.5), and a refused user is told why, 403,
    // as the login UI tells it in a browser flow.
    const refusal = (err.cause as { error_description?: string } | undefined)?.error_description;
    if (refusal) ctx.status = 403;
    ctx.body = deviceDeniedPage(pageCtx.locale, t, refusal);
    return;
  }
  const problem = err && (await problemOf(ctx, err, t));
  // A code that is wrong, expired or used is the user's error (400); any other error keeps its status.
  if (problem && ctx.status < 400) ctx.status = 400;
  ctx.body = userCodePage(pageCtx, problem, err?.userCode ?? '');
}

async function problemOf(ctx: OidcContext, err: UserCodeError, t: ReturnType<typeof deviceMessages>): Promise<{ kind: string; text: string }> {
  switch (err.name) {
    case 'NoCodeError':
      return { kind: 'missing', text: t.noCode };
    case 'NotFoundError':
      return { kind: 'unknown', text: t.unknownCode };
    case 'ExpiredError':
      return { kind: 'expired', text: t.expiredCode };
    case 'AlreadyUsedError': {
      // Denied or approved before: the code's own state tells which (one more read, on this error only).
      const code = err.userCode ? await ctx.oidc.provider.DeviceCode.findByUserCode(normalize(err.userCode), { ignoreExpiration: true }) : undefined;
      return code?.error === 'access_denied' ? { kind: 'denied', text: t.deniedCode } : { kind: 'used', text: t.usedCode };
    }
    default:
      return { kind: 'failed', text: t.failed };
  }
}

/** oidc-provider's own normalisation of a typed user code (lib/helpers/user_codes.js): upper case, no separators. */
function normalize(input: string): string {
  return input.replace(/[a-z]/g, (c) => c.toUpperCase()).replace(/\W/g, '');
}

function localeOf(ctx: OidcContext): Locale {
  return chooseLocale(ctx.oidc?.deviceCode?.params?.ui_locales, ctx.get('accept-language'));
}

function pageContext(ctx: OidcContext): DevicePageContext {
  const locale = localeOf(ctx);
  return { locale, t: deviceMessages(locale), action: OIDC_ROUTES.code_verification, xsrf: ctx.oidc.session?.state?.secret ?? '' };
}

/**
 * What oidc-provider does not do for the device flow, added around it:
 * - the user code page's field is `userCode`, oidc-provider's `user_code`: renamed in the form before it reads it
 *   (user-code-field.rewrite.ts, one of the body rewrites before the provider);
 * - every user code typed counts against the login UI's per-IP limit before it is looked up, and is given back when
 *   it named a live code: past the limit nothing is looked up and the page says so (429, RFC 6585 §4);
 * - the device authorization response names the `interval` (RFC 8628 §3.2);
 * - `slow_down` (RFC 8628 §3.5) for a device polling a pending code sooner than its interval (devicePolling).
 */
export function applyDeviceFlow(provider: Provider, deps: DeviceFlowDeps): void {
  provider.use(async (ctx: OidcContext, next: () => Promise<void>) => {
    if (ctx.path === OIDC_ROUTES.code_verification && ctx.method === 'POST') return userCodePost(ctx, deps, next);
    await next();
    if (ctx.path === OIDC_ROUTES.device_authorization && ctx.status === 200 && ctx.body?.device_code) ctx.body.interval = deps.pollIntervalSeconds;
  });
  devicePolling(provider, deps);
}

async function userCodePost(ctx: OidcContext, deps: DeviceFlowDeps, next: () => Promise<void>): Promise<void> {
  // Not a form: oidc-provider reads no code from it (its field was renamed before, user-code-field.rewrite.ts).
  if (!isForm(ctx.req)) return next();
  const ip = clientAddress(ctx.req);
  const retryAfter = deps.rateLimiter ? await deps.rateLimiter.reserve(ip) : undefined;
  if (retryAfter !== undefined) {
    ctx.set('Retry-After', String(retryAfter));
    return errorPage(ctx, 429, 'rate_limited', (t) => t.tooManyAttempts(Math.ceil(retryAfter / 60)));
  }
  try {
    await next();
  } catch (error) {
    if (!withoutSession(error)) throw error;
    return errorPage(ctx, 400, 'failed', (t) => t.failed, true);
  }
  // oidc-provider names the device code as this request's entity only once the code was found, live and unused.
  if (deps.rateLimiter && ctx.oidc?.entities?.DeviceCode) await deps.rateLimiter.release(ip);
}

/**
 * A page answered here, before or instead of oidc-provider's stack (whose steps would add the login UI's headers):
 * with those headers itself, and a link to start again where that helps.
 */
function errorPage(ctx: OidcContext, status: number, kind: string, text: (t: ReturnType<typeof deviceMessages>) => string, again = false): void {
  const locale = chooseLocale(undefined, ctx.get('accept-language'));
  const t = deviceMessages(locale);
  ctx.status = status;
  ctx.type = 'html';
  ctx.set({ ...LOGIN_PAGE_HEADERS });
  const link = again ? `<p><a href="${OIDC_ROUTES.code_verification}">${esc(t.enterCode)}</a></p>` : '';
  ctx.body = page(locale, t.title, `<p class="error" role="alert" data-device-error="${kind}">${esc(text(t))}</p>${link}`);
}

/**
 * A form posted without a live session of the user code page (none, or expired): oidc-provider refuses it
 * (`could not find device form details`) and then fails to save the new session its error page made
 * (lib/helpers/initialize_app.js ensureSessionSave: "persist can only be called on previously persisted
 * Sessions"), which would be a 500. It is the user's stale or forged form: a 400 page that starts again.
 */
function withoutSession(error: unknown): boolean {
  return error instanceof TypeError && error.message.startsWith('persist can only be called on previously persisted');
}

/**
 * RFC 8628 §3.5 `slow_down`: "polling should continue, but the interval MUST be increased by 5 seconds for this and
 * all subsequent requests". oidc-provider answers a pending code `authorization_pending` however often it is polled,
 * and has no hook at its device code grant; the token endpoint reads the code through `DeviceCode.find` (its grant's
 * findGrantSource), so there, for a pending code of the requesting client, the poll is recorded in the code's row
 * (adapter/device-polls.ts, shared by every process) and one that comes too soon is answered `slow_down`. Every
 * other caller of `find` (the user's pages) is unaffected.
 */
function devicePolling(provider: Provider, deps: DeviceFlowDeps): void {
  const DeviceCode = provider.DeviceCode;
  const find = DeviceCode.find;
  DeviceCode.find = async function findForPolling(this: unknown, value: unknown, ...rest: unknown[]) {
    const code = await find.call(this, value, ...rest);
    const oidc = Provider.ctx?.oidc;
    if (!code || typeof value !== 'string' || oidc?.route !== 'token' || oidc.params?.grant_type !== DEVICE_CODE_GRANT) return code;
    const pending = !code.isExpired && !code.accountId && !code.error && !code.consumed && code.clientId === oidc.client?.clientId;
    if (!pending || (await recordDevicePoll(deps.uow, deps.hasher.hash(value), deps.pollIntervalSeconds))) return code;
    throw new errors.SlowDown();
  };
}
