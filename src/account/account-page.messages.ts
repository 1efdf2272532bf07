import { formatText, textsOf } from '../texts/texts.js';
import type { Locale } from '../texts/locales.js';

const texts = textsOf('account', { signedInAs: ['name'], linkWith: ['name'] } as const);

/** Texts of the account page (docs/account.md; `account.*` in src/texts/catalogs). */
export type AccountMessages = ReturnType<typeof texts> & { factorTypes: Record<string, string> };

const FACTOR_TYPES = ['totp', 'passkey', 'recovery_codes'] as const;

export function accountMessages(locale: Locale): AccountMessages {
  const factorTypes = Object.fromEntries(FACTOR_TYPES.map((type) => [type, formatText(locale, `account.factorTypes.${type}`)]));
  return { ...texts(locale), factorTypes };
}

/** The notices a finished change redirects to (`?done=`), so reloading the page posts nothing again. */
export const NOTICES = {
  profile: 'noticeProfile',
  email: 'noticeEmail',
  verification: 'noticeVerification',
  password: 'noticePassword',
  'factor-added': 'noticeFactorAdded',
  'factor-removed': 'noticeFactorRemoved',
  'session-ended': 'noticeSessionEnded',
  'others-ended': 'noticeOthersEnded',
  unlinked: 'noticeUnlinked',
  linked: 'noticeLinked',
  'agent-revoked': 'noticeAgentRevoked',
} as const satisfies Record<string, keyof AccountMessages>;

export type Notice = keyof typeof NOTICES;
