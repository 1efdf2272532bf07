import { DESIGN_STYLESHEET_PATH } from '../common/design/design-stylesheet.js';
import { brandFooter, brandHead, brandMark } from '../branding/brand-assets.js';
import { overridesOf } from '../branding/brand-lookup.js';
import { pageBrand } from '../branding/page-brand.js';
import { esc } from '../common/text/html-escape.js';
import { messages } from './messages.js';
import type { Messages } from './messages.js';
import { textDirection } from '../texts/locales.js';
import type { Locale } from '../texts/locales.js';

export { esc };

/** The default mark of the page header (docs/design.md, "Components"); branding replaces it. Decorative: the title names the page. */
export const MARK =
  '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M3 3h18v3H3zM5 7h2v14H5zm4 0h2v14H9zm4 0h2v14h-2zm4 0h2v14h-2zM5 11h14v2H5zm0 4h14v2H5z"/></svg>';

/**
 * The page frame of every server-rendered page (docs/design.md): the design system's stylesheet from this origin,
 * a brand's stylesheet and logo from this origin too (docs/branding.md), no inline style, so the strict CSP
 * (login-page.headers.ts) holds. `wide` for pages of
 * tables and sections (the account page, my applications), else the narrow sign-in card.
 */
export function page(locale: Locale, title: string, body: string, options: { wide?: boolean } = {}): string {
  const wide = options.wide ? ' pc-page--wide' : '';
  // The brand of this request's client, if the login UI found one (docs/branding.md): its stylesheet, logo, name and links.
  const brand = pageBrand();
  const { mark, name } = brandMark(brand);
  const t = brand ? messages(locale, overridesOf(brand, locale)) : undefined;
  const footer = t ? brandFooter(brand, { privacy: t.brandPrivacy, terms: t.brandTerms, support: t.brandSupport }) : '';
  return `<!DOCTYPE html>
<html lang="${locale}" dir="${textDirection(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${esc(title)}</title>
<link rel="stylesheet" href="${DESIGN_STYLESHEET_PATH}">${brandHead(brand)}
</head><body class="pc-page${wide}"><header class="pc-brand">${mark ?? MARK}<span>${esc(name ?? 'Portcullis')}</span></header>
<main class="pc-card${options.wide ? ' pc-card--wide' : ''}"><h1>${esc(title)}</h1>${body}</main>${footer}</body></html>`;
}

export interface FormContext {
  action: string;
  csrf: string;
  t: Messages;
  locale: Locale;
}

export const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${esc(csrf)}">`;

/**
 * What the login page offers besides the login name (docs/federation.md, "Signing in"): the password (`required`;
 * `optional` where a typed login name may lead to an identity provider instead; `none` for a federated-only
 * organization), and a button per identity provider posting to `idpAction`.
 */
export interface LoginOptions {
  password: 'required' | 'optional' | 'none';
  idps: { id: string; name: string }[];
  idpAction: string;
  /** Where the page's forms may lead after their redirects (the IdPs' issuers): its CSP's `form-action`. */
  upstreams: string[];
  /** With `password: 'none'`: the organization signs in with passkeys only (docs/passwordless.md), not through its IdPs only. */
  passkeysOnly?: boolean;
  /** A passkeys-only organization's directory door: the password is checked by its directory alone (docs/passwordless.md). */
  door?: 'directory';
}

const PASSWORD_ONLY: LoginOptions = { password: 'required', idps: [], idpAction: '', upstreams: [] };

/** A passkeys-only organization's login page. */
export function passkeysOnly(options: LoginOptions): LoginOptions {
  return { ...options, password: 'none', passkeysOnly: true };
}

/**
 * The first step. With `passkey` (the organization allows passkeys) it also offers a passkey: a button,
 * and the browser's autofill in the login name field where it supports conditional mediation.
 */
export function loginPage(ctx: FormContext, loginName: string, error?: string, links = '', passkey = '', options: LoginOptions = PASSWORD_ONLY): string {
  const password =
    options.password === 'none'
      ? ''
      : `<label for="password">${esc(ctx.t.password)}</label><input id="password" name="password" type="password" autocomplete="current-password"${options.password === 'required' ? ' required' : ''}>`;
  return page(
    ctx.locale,
    ctx.t.title,
    `${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}${options.password === 'none' ? `<p>${esc(options.passkeysOnly ? ctx.t.passkeysOnly : ctx.t.passwordLoginOff)}</p>` : ''}
<form method="post" action="${esc(ctx.action)}">${csrfField(ctx.csrf)}${options.door ? `<input type="hidden" name="door" value="${options.door}">` : ''}
<label for="loginName">${esc(ctx.t.loginName)}</label><input id="loginName" name="loginName" autocomplete="${passkey ? 'username webauthn' : 'username'}" value="${esc(loginName)}" required>
${password}
<button type="submit">${esc(options.password === 'none' ? ctx.t.next : ctx.t.signIn)}</button></form>${idpButtons(ctx, options)}${passkey}${links}`,
  );
}

/** One form per identity provider, each button `[data-idp]` (docs/federation.md, "Signing in"). */
function idpButtons(ctx: FormContext, options: LoginOptions): string {
  if (options.idps.length === 0) return '';
  const forms = options.idps
    .map(
      (idp) =>
        `<form method="post" action="${esc(options.idpAction)}">${csrfField(ctx.csrf)}` +
        `<button type="submit" class="account" name="idpId" value="${esc(idp.id)}" data-idp="${esc(idp.id)}">${esc(ctx.t.signInWith(idp.name))}</button></form>`,
    )
    .join('');
  return `<p>${esc(ctx.t.orSignInWith)}</p>${forms}`;
}

export function selectAccountPage(ctx: FormContext, accounts: string[], otherHref: string): string {
  // One form per account keeps "one submit button per form" (docs/product-rules.md, "OpenID Connect and OAuth") for scripts and browsers.
  const forms = accounts
    .map(
      (name) =>
        `<form method="post" action="${esc(ctx.action)}">${csrfField(ctx.csrf)}` +
        `<button type="submit" class="account" name="loginName" value="${esc(name)}" data-login-name="${esc(name)}">${esc(name)}</button></form>`,
    )
    .join('');
  return page(ctx.locale, ctx.t.selectAccount, `${forms}<p><a href="${esc(otherHref)}">${esc(ctx.t.otherAccount)}</a></p>`);
}

export function registerPage(ctx: FormContext, values: Record<string, string>, error?: string): string {
  const field = (name: string, label: string, type = 'text') =>
    `<label for="${name}">${esc(label)}</label><input id="${name}" name="${name}" type="${type}" value="${type === 'password' ? '' : esc(values[name] ?? '')}" required>`;
  return page(
    ctx.locale,
    ctx.t.registerTitle,
    `${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="${esc(ctx.action)}">${csrfField(ctx.csrf)}
${field('firstName', ctx.t.firstName)}${field('lastName', ctx.t.lastName)}${field('email', ctx.t.email, 'email')}${field('userName', ctx.t.userName)}${field('password', ctx.t.password, 'password')}
<button type="submit">${esc(ctx.t.register)}</button></form>`,
  );
}

/**
 * What an error page offers after the error: `retry`, the advice to go back and try again (a request that may work
 * another time); `{ homeUrl }`, for a sign-in refused for good, a link to the application's `homeUrl` when it has one
 * and otherwise nothing, since no page of it is known (docs/application-access.md, "When someone is refused").
 */
export type ErrorPageWayBack = 'retry' | { homeUrl: string | undefined };

export function errorPage(locale: Locale, t: Messages, error: string, description?: string, wayBack: ErrorPageWayBack = 'retry'): string {
  // The OAuth error and its description are the protocol's words for the client's developer: English, marked so.
  const reason = `<p class="error" data-error="${esc(error)}" lang="en"><strong>${esc(error)}</strong>${description ? `: ${esc(description)}` : ''}</p>`;
  // A refusal is no failure: "Something went wrong" and "try again" would promise what no retry can give (RFC 6749 §4.1.2.1, access_denied).
  const refused = wayBack !== 'retry' || error === 'access_denied';
  const title = refused ? t.refusedTitle : t.errorTitle;
  if (wayBack === 'retry') return page(locale, title, `${refused ? '' : `<p>${esc(t.errorHint)}</p>`}${reason}`);
  const home = wayBack.homeUrl ? `<p><a href="${esc(wayBack.homeUrl)}" data-app-home>${esc(t.returnToApplication)}</a></p>` : '';
  return page(locale, title, `${reason}${home}`);
}

/** oidc-provider hands over its own logout form (with its CSRF value); we add the localized buttons. */
export function logoutPage(locale: Locale, t: Messages, providerForm: string): string {
  return page(
    locale,
    t.logoutTitle,
    `<p>${esc(t.logoutQuestion)}</p>${providerForm}
<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">${esc(t.logoutYes)}</button>`,
  );
}

export function loggedOutPage(locale: Locale, t: Messages): string {
  return page(locale, t.logoutTitle, `<p data-logged-out="true">${esc(t.loggedOut)}</p>`);
}
