import { esc } from '../common/text/html-escape.js';
import type { Locale, Messages } from './messages.js';

export { esc };

/** The page frame: no external resources, so the strict CSP below holds. */
export function page(locale: Locale, title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:360px;margin:40px auto;padding:0 16px}label{display:block;margin:12px 0 4px}input{width:100%;padding:8px;box-sizing:border-box}button{margin-top:16px;padding:8px 16px}.error{color:#b00020}.account{display:block;width:100%;text-align:left}</style>
</head><body><main><h1>${esc(title)}</h1>${body}</main></body></html>`;
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
}

const PASSWORD_ONLY: LoginOptions = { password: 'required', idps: [], idpAction: '', upstreams: [] };

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
    `${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}${options.password === 'none' ? `<p>${esc(ctx.t.passwordLoginOff)}</p>` : ''}
<form method="post" action="${esc(ctx.action)}">${csrfField(ctx.csrf)}
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
  const reason = `<p class="error" data-error="${esc(error)}"><strong>${esc(error)}</strong>${description ? `: ${esc(description)}` : ''}</p>`;
  if (wayBack === 'retry') return page(locale, t.errorTitle, `<p>${esc(t.errorHint)}</p>${reason}`);
  const home = wayBack.homeUrl ? `<p><a href="${esc(wayBack.homeUrl)}" data-app-home>${esc(t.returnToApplication)}</a></p>` : '';
  return page(locale, t.errorTitle, `${reason}${home}`);
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
