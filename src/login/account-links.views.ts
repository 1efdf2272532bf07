import { csrfField, esc, page } from './login.views.js';
import type { FormContext } from './login.views.js';
import type { Messages } from './messages.js';
import type { Locale } from '../texts/locales.js';
import { APPS_UI_PATH } from './ui-paths.js';

const alert = (error?: string) => (error ? `<p class="error" role="alert">${esc(error)}</p>` : '');

/** The link on the password page (docs/mail.md, "Forgot password": `[data-forgot-password]`). */
export function forgotPasswordLink(t: Messages, href: string): string {
  return `<p><a href="${esc(href)}" data-forgot-password>${esc(t.forgotPassword)}</a></p>`;
}

/** Asks for the login name; the answer is the same whatever it is (SECURITY.md, "What we defend", account enumeration). */
export function forgotPasswordPage(ctx: FormContext, loginName: string, backHref: string, error?: string): string {
  return page(
    ctx.locale,
    ctx.t.forgotTitle,
    `${alert(error)}<p>${esc(ctx.t.forgotHint)}</p>
<form method="post" action="${esc(ctx.action)}" data-reset-request>${csrfField(ctx.csrf)}
<label for="loginName">${esc(ctx.t.loginName)}</label><input id="loginName" name="loginName" autocomplete="username" value="${esc(loginName)}" required>
<button type="submit">${esc(ctx.t.sendLink)}</button></form><p><a href="${esc(backHref)}">${esc(ctx.t.backToSignIn)}</a></p>`,
  );
}

export function resetRequestedPage(locale: Locale, t: Messages, backHref: string): string {
  return page(locale, t.forgotTitle, `<p data-reset-requested>${esc(t.resetRequested)}</p><p><a href="${esc(backHref)}">${esc(t.backToSignIn)}</a></p>`);
}

/**
 * The page a mailed link opens: a new password, twice. The code travels in the form, not in a cookie, so the
 * link works in any browser; it is what authorizes the form, so no other CSRF value is needed.
 */
export function setPasswordPage(
  locale: Locale,
  t: Messages,
  kind: 'invitation' | 'password-reset',
  action: string,
  code: string,
  userName: string,
  error?: string,
): string {
  const field = (name: string, label: string) =>
    `<label for="${name}">${esc(label)}</label><input id="${name}" name="${name}" type="password" autocomplete="new-password" required>`;
  return page(
    locale,
    kind === 'invitation' ? t.invitationTitle : t.newPasswordTitle,
    `${alert(error)}<p>${esc(kind === 'invitation' ? t.invitationHint(userName) : t.resetHint(userName))}</p>
<form method="post" action="${esc(action)}" data-${kind}><input type="hidden" name="code" value="${esc(code)}">
<input type="hidden" name="username" autocomplete="username" value="${esc(userName)}">
${field('password', t.newPassword)}${field('passwordConfirm', t.passwordConfirm)}
<button type="submit">${esc(t.setPassword)}</button></form>`,
  );
}

/**
 * The forced change after sign-in (docs/mail.md, "Password change required": `changeRequired`, an import's
 * `passwordChangeRequired`): inside the
 * sign-in's interaction, with its CSRF value; the authorization completes once it is done.
 */
export function passwordChangePage(ctx: FormContext, userName: string, error?: string): string {
  const field = (name: string, label: string) =>
    `<label for="${name}">${esc(label)}</label><input id="${name}" name="${name}" type="password" autocomplete="new-password" required>`;
  return page(
    ctx.locale,
    ctx.t.passwordChangeTitle,
    `${alert(error)}<p>${esc(ctx.t.passwordChangeHint)}</p>
<form method="post" action="${esc(ctx.action)}" data-password-change>${csrfField(ctx.csrf)}
<input type="hidden" name="username" autocomplete="username" value="${esc(userName)}">
${field('password', ctx.t.newPassword)}${field('passwordConfirm', ctx.t.passwordConfirm)}
<button type="submit">${esc(ctx.t.setPassword)}</button></form>`,
  );
}

/**
 * An expired directory password, changed on the way in (docs/directories.md, "Sign-in"): the current one again (the
 * directory's change is made with it, as the person) and a new one twice; inside the sign-in's interaction.
 */
export function directoryPasswordChangePage(ctx: FormContext, loginName: string, error?: string): string {
  const field = (name: string, label: string, autocomplete: string) =>
    `<label for="${name}">${esc(label)}</label><input id="${name}" name="${name}" type="password" autocomplete="${autocomplete}" required>`;
  return page(
    ctx.locale,
    ctx.t.passwordChangeTitle,
    `${alert(error)}<p>${esc(ctx.t.directoryPasswordChangeHint)}</p>
<form method="post" action="${esc(ctx.action)}" data-directory-password-change>${csrfField(ctx.csrf)}
<input type="hidden" name="loginName" autocomplete="username" value="${esc(loginName)}">
${field('currentPassword', ctx.t.currentPassword, 'current-password')}${field('password', ctx.t.newPassword, 'new-password')}${field('passwordConfirm', ctx.t.passwordConfirm, 'new-password')}
<button type="submit">${esc(ctx.t.setPassword)}</button></form>`,
  );
}

/** The page a verification link opens: one button, so a mail scanner that fetches the link verifies nothing. */
export function emailVerificationPage(locale: Locale, t: Messages, action: string, code: string, userName: string): string {
  return page(
    locale,
    t.verifyEmailTitle,
    `<p>${esc(t.verifyEmailConfirmHint(userName))}</p>
<form method="post" action="${esc(action)}" data-email-verification><input type="hidden" name="code" value="${esc(code)}">
<button type="submit">${esc(t.verifyEmailConfirm)}</button></form>`,
  );
}

export function emailVerifiedPage(locale: Locale, t: Messages): string {
  return page(locale, t.verifyEmailTitle, `<p data-email-verified>${esc(t.emailVerified)}</p>`);
}

/**
 * A sign-in stopped by `requireVerifiedEmail` (docs/mail.md, "E-mail verification"): a link went to the address; once
 * it is followed (in any
 * browser), "continue" completes the sign-in. "Send again" mails a new link.
 */
export function verifyEmailPage(ctx: FormContext, email: string, resendAction: string, notice?: string): string {
  return page(
    ctx.locale,
    ctx.t.verifyEmailTitle,
    `${notice ? `<p role="status">${esc(notice)}</p>` : ''}<p data-verify-email>${esc(ctx.t.verifyEmailSent(email))}</p>
<form method="post" action="${esc(ctx.action)}">${csrfField(ctx.csrf)}<button type="submit">${esc(ctx.t.verifyEmailContinue)}</button></form>
<form method="post" action="${esc(resendAction)}">${csrfField(ctx.csrf)}<button type="submit">${esc(ctx.t.verifyEmailResend)}</button></form>`,
  );
}

/** A verification link whose address another user of the organization meanwhile holds verified: refused, nothing changed. */
export function emailVerifiedElsewherePage(locale: Locale, t: Messages): string {
  return page(locale, t.verifyEmailTitle, `<p class="error" data-error="email_verified_elsewhere">${esc(t.emailVerifiedElsewhere)}</p>`);
}

/**
 * The end of an invitation or a reset: the login name to sign in with, and the way on to the person's applications
 * (`/ui/apps`, which signs them in first) rather than a dead end.
 */
export function passwordSetPage(locale: Locale, t: Messages, userName: string): string {
  return page(
    locale,
    t.passwordSetTitle,
    `<p role="status" data-password-set>${esc(t.passwordSet)}</p><p data-login-name-hint>${esc(t.yourLoginName(userName))}</p>
<p><a href="${esc(APPS_UI_PATH)}" data-my-apps>${esc(t.openMyApps)}</a></p>`,
  );
}

export function invalidLinkPage(locale: Locale, t: Messages): string {
  return page(locale, t.errorTitle, `<p class="error" data-error="invalid_link">${esc(t.invalidLink)}</p>`);
}
