import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The login UI's only script: the WebAuthn ceremony (docs/product-rules.md, "Multi-factor sign-in").
 * @simplewebauthn/browser runs the ceremony and encodes its result; this script starts it from the
 * page's buttons (or from the login name field's autofill, where the browser supports conditional
 * mediation), puts the JSON response into the form and submits it. Autofill is armed when the page
 * loads, except after a refused passkey: then only on the user's first key or pointer press.
 * Without WebAuthn the buttons stay hidden and a note says so.
 */
const PASSKEYS_JS = `(() => {
  'use strict';
  const lib = window.SimpleWebAuthnBrowser;
  const optionsOf = (purpose) => JSON.parse(document.getElementById('passkey-options-' + purpose).textContent);
  const submit = (form, response) => { form.querySelector('input[name="response"]').value = JSON.stringify(response); form.submit(); };
  const forms = document.querySelectorAll('form[data-passkey-form]');
  if (!lib || !lib.browserSupportsWebAuthn()) {
    forms.forEach((form) => { form.querySelector('[data-passkey-unsupported]').hidden = false; });
    return;
  }
  forms.forEach((form) => {
    const purpose = form.dataset.passkeyForm;
    const button = form.querySelector('button');
    const failed = () => { form.querySelector('[data-passkey-unsupported]').hidden = false; };
    button.hidden = false;
    button.addEventListener('click', () => {
      const optionsJSON = optionsOf(purpose);
      const ceremony = purpose === 'register' ? lib.startRegistration({ optionsJSON }) : lib.startAuthentication({ optionsJSON });
      ceremony.then((response) => submit(form, response), (error) => { if (error && error.name !== 'AbortError') failed(); });
    });
    const arm = () => lib.browserSupportsWebAuthnAutofill().then((supported) => {
      if (!supported) return;
      lib.startAuthentication({ optionsJSON: optionsOf(purpose), useBrowserAutofill: true }).then((response) => submit(form, response), () => undefined);
    });
    if (form.dataset.autofill === 'on-load') arm();
    if (form.dataset.autofill === 'on-action') {
      // After a refused passkey: an authenticator that answers without a gesture would reload the page in a loop.
      const once = (event) => {
        if (!event.isTrusted) return;
        ['pointerdown', 'keydown'].forEach((type) => document.removeEventListener(type, once, true));
        arm();
      };
      ['pointerdown', 'keydown'].forEach((type) => document.addEventListener(type, once, true));
    }
  });
})();
`;

const require = createRequire(import.meta.url);
// The package exports only its modules; its browser bundle sits beside them (its `unpkg` entry).
const WEBAUTHN_JS = readFileSync(join(dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8');

/** Served under /ui/login/assets/ (same origin: the pages' CSP allows scripts from 'self' only). */
export const PASSKEY_ASSETS: Readonly<Record<string, string>> = {
  'webauthn.js': WEBAUTHN_JS,
  'passkeys.js': PASSKEYS_JS,
};
