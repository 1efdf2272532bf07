import { esc, page } from '../login/login.views.js';
import type { Locale } from '../texts/locales.js';
import { ACCOUNT_UI_PREFIX } from '../login/ui-paths.js';
import type { MyAppsMessages } from './my-apps.messages.js';

/** One application of the list: its name and the link its operator set (`homeUrl`), exactly as set. */
export interface MyApp {
  appId: string;
  name: string;
  kind: 'oidc' | 'saml';
  homeUrl: string;
}

/** The list of `[data-app]` links, one per application the person may enter, by name; a link back to the account page. */
export function myAppsPage(locale: Locale, t: MyAppsMessages, apps: MyApp[]): string {
  const items = apps.map(
    (a) =>
      `<li data-app="${esc(a.appId)}" data-app-kind="${esc(a.kind)}"><a href="${esc(a.homeUrl)}">${esc(a.name)}</a> <small>(${esc(t.kinds[a.kind] ?? a.kind)})</small></li>`,
  );
  const list =
    items.length > 0
      ? `<ul class="pc-app-list" aria-label="${esc(t.title)}" data-apps>${items.join('')}</ul>`
      : `<div class="pc-empty"><p data-apps-none>${esc(t.none)}</p><p>${esc(t.noneHint)}</p></div>`;
  const body = `${list}<p><a href="${esc(ACCOUNT_UI_PREFIX)}">${esc(t.toAccount)}</a></p>`;
  return page(locale, t.title, body, { wide: true });
}
