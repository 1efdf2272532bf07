import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { LOGIN_UI_PREFIX } from './ui-paths.js';
import { csrfField, esc, page } from './login.views.js';
import type { FormContext } from './login.views.js';

/**
 * Pages of the second step (docs/product-rules.md, "Multi-factor sign-in"), with the stable hooks
 * scripts and tests use: field `code`; `data-totp-secret`, `data-totp-uri`, `data-recovery-code`,
 * `data-passkey-login`, `data-passkey-register`. Plain forms; only the WebAuthn ceremony runs script.
 */

const errorLine = (error?: string) => (error ? `<p class="error" role="alert">${esc(error)}</p>` : '');

/** JSON inside a script element: `<` escaped so no string in it can close the element. */
export const jsonScript = (id: string, value: unknown) =>
  `<script type="application/json" id="${id}">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;

export const PASSKEY_SCRIPTS = `<script src="${LOGIN_UI_PREFIX}/assets/webauthn.js"></script><script src="${LOGIN_UI_PREFIX}/assets/passkeys.js"></script>`;

/**
 * A passkey ceremony: the options, a form the script fills with the authenticator's response and
 * submits, and the button that starts it. `autofill` also offers passkeys in the login name field.
 */
/** When the login name field offers passkeys: at once, only after the user's first action, or never. */
export type PasskeyAutofill = 'on-load' | 'on-action' | 'off';

export function passkeyForm(
  ctx: FormContext,
  purpose: 'sign-in' | 'register',
  options: PublicKeyCredentialRequestOptionsJSON | PublicKeyCredentialCreationOptionsJSON,
  autofill: PasskeyAutofill = 'off',
): string {
  const hook = purpose === 'sign-in' ? 'data-passkey-login' : 'data-passkey-register';
  const label = purpose === 'sign-in' ? ctx.t.usePasskey : ctx.t.setUpPasskey;
  return `${jsonScript(`passkey-options-${purpose}`, options)}
<form method="post" action="${esc(ctx.action)}" data-passkey-form="${purpose}" data-autofill="${autofill}">${csrfField(ctx.csrf)}<input type="hidden" name="response" value="">
<button type="button" ${hook} hidden>${esc(label)}</button><p class="error" data-passkey-unsupported hidden>${esc(ctx.t.passkeyUnsupported)}</p></form>${PASSKEY_SCRIPTS}`;
}

/** The second factor: a TOTP or recovery code, or a passkey (`passkey`: its ceremony, when the user has one). */
export function secondFactorPage(ctx: FormContext, passkey: string, error?: string): string {
  return page(
    ctx.locale,
    ctx.t.secondFactorTitle,
    `${errorLine(error)}
<form method="post" action="${esc(ctx.action)}">${csrfField(ctx.csrf)}
<label for="code">${esc(ctx.t.codeLabel)}</label><input id="code" name="code" autocomplete="one-time-code" inputmode="text" autofocus required>
<button type="submit">${esc(ctx.t.verify)}</button></form>${passkey}`,
  );
}

/** The choice of a first factor to enrol; `skip` (an action) where the policy only offers it. */
export function enrolPage(ctx: FormContext, required: boolean, totpAction: string, passkey: string, skipAction?: string, error?: string): string {
  const skip = skipAction
    ? `<form method="post" action="${esc(skipAction)}">${csrfField(ctx.csrf)}<button type="submit" data-mfa-skip>${esc(ctx.t.skip)}</button></form>`
    : '';
  return page(
    ctx.locale,
    ctx.t.enrolTitle,
    `${errorLine(error)}<p>${esc(required ? ctx.t.enrolRequired : ctx.t.enrolOffer)}</p>
<form method="post" action="${esc(totpAction)}">${csrfField(ctx.csrf)}<button type="submit" data-totp-enrol>${esc(ctx.t.setUpTotp)}</button></form>
${passkey}${skip}`,
  );
}

/** TOTP enrolment: the secret and its otpauth:// URI, then the first code. */
export function totpEnrolPage(ctx: FormContext, secret: string, uri: string, factorId: string, error?: string): string {
  return page(
    ctx.locale,
    ctx.t.totpTitle,
    `${errorLine(error)}<p>${esc(ctx.t.totpInstructions)}</p>
<p><code data-totp-secret>${esc(secret)}</code></p>
<p><a href="${esc(uri)}" data-totp-uri="${esc(uri)}">${esc(ctx.t.totpLink)}</a></p>
<form method="post" action="${esc(ctx.action)}">${csrfField(ctx.csrf)}<input type="hidden" name="factorId" value="${esc(factorId)}">
<label for="code">${esc(ctx.t.code)}</label><input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" autofocus required>
<button type="submit">${esc(ctx.t.verify)}</button></form>`,
  );
}

/** The ten recovery codes, shown once; `codes` is empty when the page is shown again. */
export function recoveryCodesPage(ctx: FormContext, codes: string[]): string {
  const list =
    codes.length > 0
      ? `<p>${esc(ctx.t.recoveryInstructions)}</p><ul>${codes.map((c) => `<li><code data-recovery-code>${esc(c)}</code></li>`).join('')}</ul>`
      : '';
  return page(
    ctx.locale,
    ctx.t.recoveryTitle,
    `${list}<form method="post" action="${esc(ctx.action)}">${csrfField(ctx.csrf)}<button type="submit">${esc(ctx.t.continue)}</button></form>`,
  );
}
