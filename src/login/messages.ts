import { textsOf } from '../texts/texts.js';
import type { Texts } from '../texts/texts.js';

/** The login UI's messages with arguments, in the order their functions take them (docs/languages.md). */
const ARGUMENTS = {
  tooManyAttempts: ['minutes'],
  signInWith: ['name'],
  idpFirstContact: ['name'],
  appAccessDenied: ['app'],
  idpTestLinked: ['user'],
  idpTestLink: ['user', 'by'],
  idpTestCreate: ['user'],
  idpTestRefused: ['reason'],
  invitationHint: ['user'],
  resetHint: ['user'],
  yourLoginName: ['user'],
  verifyEmailSent: ['email'],
  verifyEmailConfirmHint: ['user'],
  passkeyEnrolHint: ['user'],
  passkeyStepHint: ['user'],
} as const;

/** Texts of the login UI (`login.*` in src/texts/catalogs), in every language the pages are written in. */
export type Messages = Texts<'login', typeof ARGUMENTS>;

export const messages = textsOf('login', ARGUMENTS);
