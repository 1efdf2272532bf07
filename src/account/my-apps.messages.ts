import { formatText, textsOf } from '../texts/texts.js';
import type { Texts } from '../texts/texts.js';
import type { Locale } from '../texts/locales.js';

const texts = textsOf('apps', {});

/** Texts of the page of a person's own applications (docs/application-access.md; `apps.*` in src/texts/catalogs). */
export type MyAppsMessages = Texts<'apps', Record<never, never>> & { kinds: Record<string, string> };

export function myAppsMessages(locale: Locale): MyAppsMessages {
  return { ...texts(locale), kinds: { oidc: formatText(locale, 'apps.kinds.oidc'), saml: formatText(locale, 'apps.kinds.saml') } };
}
