import type { Locale } from '../login/messages.js';

/** Texts of the page of a person's own applications (docs/application-access.md), English and German; the same keys in both. */
const EN = {
  title: 'Your applications',
  none: 'No application to open yet.',
  kinds: { oidc: 'OpenID Connect', saml: 'SAML' } as Record<string, string>,
  toAccount: 'Your account',
};

export type MyAppsMessages = typeof EN;

const DE: MyAppsMessages = {
  title: 'Ihre Anwendungen',
  none: 'Noch keine Anwendung zum Öffnen.',
  kinds: { oidc: 'OpenID Connect', saml: 'SAML' },
  toAccount: 'Ihr Konto',
};

export function myAppsMessages(locale: Locale): MyAppsMessages {
  return locale === 'de' ? DE : EN;
}
