import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { APPS_UI_PATH } from './ui-paths.js';
import { csrfField, esc, page } from './login.views.js';
import type { FormContext } from './login.views.js';
import type { Messages } from './messages.js';
import { jsonScript, PASSKEY_SCRIPTS } from './second-factor.views.js';
import type { Locale } from '../texts/locales.js';

/**
 * The pages of a passkeys-only organization (docs/passwordless.md), with the hooks scripts and tests use:
 * `data-passkey-recovery` (the sign-in page's link), `data-recovery-request`, `data-recovery-requested`,
 * `data-passkey-link` (the mailed link's page), `data-passkey-ready`, `data-recovery-code`. None has a password field.
 */

const alert = (error?: string) => (error ? `<p class="error" role="alert">${esc(error)}</p>` : '');

/** The sign-in page's way back for a person who lost the passkey. */
export function passkeyRecoveryLink(t: Messages, href: string): string {
  return `<p><a href="${esc(href)}" data-passkey-recovery>${esc(t.passkeyRecovery)}</a></p>`;
}

/** Asks for the login name; the answer is the same whatever it is (SECURITY.md, "What we defend", account enumeration). */
export function passkeyRecoveryPage(ctx: FormContext, loginName: string, backHref: string, error?: string): string {
  return page(
    ctx.locale,
    ctx.t.passkeyRecoveryTitle,
    `${alert(error)}<p>${esc(ctx.t.passkeyRecoveryHint)}</p>
<form method="post" action="${esc(ctx.action)}" data-recovery-request>${csrfField(ctx.csrf)}
<label for="loginName">${esc(ctx.t.loginName)}</label><input id="loginName" name="loginName" autocomplete="username" value="${esc(loginName)}" required>
<button type="submit">${esc(ctx.t.sendLink)}</button></form><p><a href="${esc(backHref)}">${esc(ctx.t.backToSignIn)}</a></p>`,
  );
}

export function recoveryRequestedPage(locale: Locale, t: Messages, backHref: string): string {
  return page(
    locale,
    t.passkeyRecoveryTitle,
    `<p data-recovery-requested>${esc(t.recoveryRequested)}</p><p><a href="${esc(backHref)}">${esc(t.backToSignIn)}</a></p>`,
  );
}

/**
 * The page a mailed link opens for a passkeys-only person: a new passkey (and, when recovering an account that has
 * recovery codes, one of them first). The code travels in the form, as on the password pages (account-links.views.ts).
 */
export function passkeyLinkPage(
  locale: Locale,
  t: Messages,
  link: { action: string; code: string; loginName: string; askRecoveryCode: boolean },
  options: PublicKeyCredentialCreationOptionsJSON,
  error?: string,
): string {
  const recovery = link.askRecoveryCode
    ? `<label for="recoveryCode">${esc(t.recoveryCodeLabel)}</label><input id="recoveryCode" name="recoveryCode" autocomplete="one-time-code" required>`
    : '';
  return page(
    locale,
    t.passkeyEnrolTitle,
    `${alert(error)}<p>${esc(t.passkeyEnrolHint(link.loginName))}</p>${jsonScript('passkey-options-register', options)}
<form method="post" action="${esc(link.action)}" data-passkey-link data-passkey-form="register" data-autofill="off"><input type="hidden" name="code" value="${esc(link.code)}">
${recovery}<input type="hidden" name="response" value="">
<button type="button" data-passkey-register hidden>${esc(t.setUpPasskey)}</button><p class="error" data-passkey-unsupported hidden>${esc(t.passkeyUnsupported)}</p></form>${PASSKEY_SCRIPTS}`,
  );
}

/**
 * The new passkey is stored; the recovery codes made with it, shown once. `replaced`: earlier passkeys were removed and
 * the person signed out everywhere (docs/passwordless.md, "Recovery ends the lost credential"), and the page says so.
 */
export function passkeyReadyPage(locale: Locale, t: Messages, loginName: string, codes: string[], replaced = false): string {
  const list =
    codes.length > 0
      ? `<h2>${esc(t.recoveryTitle)}</h2><p>${esc(t.recoveryInstructions)}</p><ul>${codes.map((c) => `<li><code data-recovery-code>${esc(c)}</code></li>`).join('')}</ul>`
      : '';
  return page(
    locale,
    t.passkeyReadyTitle,
    `<p role="status" data-passkey-ready>${esc(t.passkeyReady)}</p>${replaced ? `<p data-passkeys-replaced>${esc(t.passkeysReplaced)}</p>` : ''}<p data-login-name-hint>${esc(t.yourLoginName(loginName))}</p>${list}
<p><a href="${esc(APPS_UI_PATH)}" data-my-apps>${esc(t.openMyApps)}</a></p>`,
  );
}
