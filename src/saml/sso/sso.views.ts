import { esc, page } from '../../login/login.views.js';
import type { Messages } from '../../login/messages.js';
import type { Locale } from '../../texts/locales.js';

/**
 * The HTTP-POST binding's page (SAML Bindings §3.5.4): a form posting the response to the SP's ACS URL, submitted by a
 * script allowed by this page's CSP nonce only, and a button `[data-saml-continue]` for a browser without JavaScript.
 */
export function autoPostPage(
  locale: Locale,
  t: Messages,
  nonce: string,
  acsUrl: string,
  field: 'SAMLResponse' | 'SAMLRequest',
  message: string,
  relayState: string | null,
): string {
  const relay = relayState === null ? '' : `<input type="hidden" name="RelayState" value="${esc(relayState)}">`;
  return page(
    locale,
    t.samlContinueTitle,
    `<p>${esc(t.samlContinueHint)}</p>
<form id="saml-post" method="post" action="${esc(acsUrl)}"><input type="hidden" name="${field}" value="${esc(message)}">${relay}
<button type="submit" data-saml-continue>${esc(t.samlContinue)}</button></form>
<script nonce="${esc(nonce)}">document.getElementById('saml-post').submit();</script>`,
  );
}
