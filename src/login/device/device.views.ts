import { esc, page } from '../login.views.js';
import type { Locale } from '../../texts/locales.js';
import type { DeviceMessages } from './device.messages.js';

/** What each device page needs: its language, texts, where its forms post and their CSRF value (oidc-provider's `xsrf`). */
export interface DevicePageContext {
  locale: Locale;
  t: DeviceMessages;
  action: string;
  xsrf: string;
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${esc(value)}">`;

/**
 * The user code page (RFC 8628 §3.3): one field, `userCode`, and one submit button (docs/product-rules.md,
 * "OpenID Connect and OAuth": stable field names). `error` is a problem with the code typed before.
 */
export function userCodePage(ctx: DevicePageContext, error?: { kind: string; text: string }, typed = ''): string {
  const alert = error ? `<p class="error" role="alert" data-device-error="${esc(error.kind)}">${esc(error.text)}</p>` : '';
  return page(
    ctx.locale,
    ctx.t.title,
    `${alert}<p>${esc(ctx.t.enterCode)}</p>
<form method="post" action="${esc(ctx.action)}">${hidden('xsrf', ctx.xsrf)}
<label for="userCode">${esc(ctx.t.userCode)}</label><input id="userCode" name="userCode" value="${esc(typed)}" autocomplete="off" autocapitalize="characters" spellcheck="false" required autofocus>
<button type="submit">${esc(ctx.t.next)}</button></form>`,
  );
}

/**
 * The confirmation (RFC 8628 §5.4, "remote phishing"): it names the application and its organization and shows the
 * code, so a user who was sent someone else's code can see whose sign-in it is. Two forms, one button each.
 */
export function confirmPage(ctx: DevicePageContext, app: string, org: string, userCode: string): string {
  const form = (button: string) => `<form method="post" action="${esc(ctx.action)}">${hidden('xsrf', ctx.xsrf)}${hidden('userCode', userCode)}${button}</form>`;
  return page(
    ctx.locale,
    ctx.t.confirmTitle,
    `<p data-device-app>${esc(ctx.t.confirmQuestion(app, org))}</p>
<p>${esc(ctx.t.confirmCode)}</p><p><strong class="pc-code-display" data-device-user-code>${esc(userCode)}</strong></p>
<p>${esc(ctx.t.confirmWarning)}</p>
${form(`<button type="submit" name="confirm" value="yes" data-device-confirm>${esc(ctx.t.confirm)}</button>`)}
${form(`<button type="submit" name="abort" value="yes" data-device-deny>${esc(ctx.t.deny)}</button>`)}`,
  );
}

export function deviceSuccessPage(locale: Locale, t: DeviceMessages, app: string): string {
  return page(locale, t.successTitle, `<p data-device-success>${esc(t.success(app))}</p>`);
}

/** The device was not connected; `reason` says why when the sign-in was refused rather than denied by the user. */
export function deviceDeniedPage(locale: Locale, t: DeviceMessages, reason?: string): string {
  const why = reason ? `<p class="error" role="alert" data-error="access_denied">${esc(reason)}</p>` : '';
  return page(locale, t.deniedTitle, `<p data-device-denied>${esc(t.denied)}</p>${why}`);
}
