import { esc, page } from '../../login/login.views.js';
import type { Messages } from '../../login/messages.js';
import type { Locale } from '../../texts/locales.js';

/**
 * The way on to a SAML IdP whose metadata was read for the first time in this request (docs/federation.md, "Not
 * reached yet"): a link, not a redirect. The login page's `form-action` named no SSO URL for it, and browsers hold a
 * form's redirects to `form-action`; a link the person follows is a navigation of its own.
 */
export function firstContactPage(locale: Locale, t: Messages, idpName: string, href: string): string {
  return page(locale, idpName, `<p>${esc(t.idpFirstContact(idpName))}</p><p><a href="${esc(href)}" data-idp-continue>${esc(t.continue)}</a></p>`);
}
