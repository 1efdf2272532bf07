/** Texts of the login UI (docs/product-rules.md, "OpenID Connect and OAuth": English and German). Keys are the same in every language. */
const EN = {
  title: 'Sign in',
  loginName: 'Login name',
  password: 'Password',
  next: 'Next',
  signIn: 'Sign in',
  invalidCredentials: 'The login name or password is wrong.',
  busy: 'Too many sign-ins are being checked right now. Try again in a few seconds.',
  tooManyAttempts: (minutes: number) => `Too many failed sign-in attempts. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
  selectAccount: 'Choose an account',
  sessionEnded: 'Your session has ended. Enter your password to continue.',
  otherAccount: 'Use another account',
  register: 'Create an account',
  registerTitle: 'Register',
  firstName: 'First name',
  lastName: 'Last name',
  email: 'Email',
  userName: 'User name',
  registrationFailed: 'The registration could not be completed.',
  logoutTitle: 'Sign out',
  logoutQuestion: 'Do you want to sign out?',
  logoutYes: 'Yes, sign me out',
  logoutNo: 'No, stay signed in',
  loggedOut: 'You are signed out.',
  errorTitle: 'Something went wrong',
  samlContinueTitle: 'Signing you in',
  samlContinueHint: 'You are being returned to the application. If nothing happens, continue with the button.',
  samlContinue: 'Continue',
  errorHint: 'The request could not be processed. Return to the application and try again.',
  cancel: 'Cancel',
  secondFactorTitle: 'Confirm it is you',
  codeLabel: 'Code from your authenticator app, or a recovery code',
  verify: 'Verify',
  usePasskey: 'Use a passkey',
  signInWithPasskey: 'Sign in with a passkey',
  invalidCode: 'The code is wrong, expired or used already.',
  passkeyRefused: 'The passkey was not accepted.',
  passkeyUnsupported: 'This browser cannot use passkeys here.',
  enrolTitle: 'Protect your account',
  enrolRequired: 'Your organization requires a second factor. Set one up to continue.',
  enrolOffer: 'Add a second factor, so that a password alone cannot sign in as you.',
  setUpTotp: 'Set up an authenticator app',
  setUpPasskey: 'Create a passkey',
  skip: 'Not now',
  totpTitle: 'Set up your authenticator app',
  totpInstructions: 'Add this key to your authenticator app, or open the link on your phone; then enter the code the app shows.',
  totpLink: 'Open in an authenticator app',
  code: 'Code',
  recoveryTitle: 'Your recovery codes',
  recoveryInstructions: 'Keep these codes somewhere safe. Each one works once, when you cannot use your other factors. They are shown only now.',
  continue: 'Continue',
  signInWith: (name: string) => `Sign in with ${name}`,
  orSignInWith: 'Or sign in with',
  passwordLoginOff: 'Your organization signs you in through its identity provider. Enter your login name, or choose your identity provider.',
  idpNoAccount: 'There is no account here for the identity you signed in with. Ask your administrator to set one up.',
  idpRefused: 'The sign-in through your identity provider could not be accepted. Start again from the application.',
  idpInitiatedRefused:
    'Your identity provider may not start a sign-in here: this organization does not accept sign-ins started at the identity provider. Open the application and sign in from there.',
  idpUnavailable: 'Your identity provider could not be reached. Try again in a few minutes.',
  idpFirstContact: (name: string) => `${name} was reached for the first time. Continue to sign in there.`,
  idpNoSubject:
    'Your identity provider did not say who you are in the way this organization expects (the claim that names you is missing). Ask your administrator to check the identity provider’s settings.',
  idpInactive: 'This account is deactivated or locked.',
  appAccessDenied: (app: string) => `You have no access to ${app}. Ask your administrator to grant it to you.`,
  idpTestTitle: 'Test sign-in',
  idpTestHint: 'Nothing was linked or created and no session was made: this page only shows what a sign-in would do.',
  idpTestSubject: 'Subject at the identity provider',
  idpTestClaims: 'What the identity provider sent',
  idpTestMethods: 'Methods it names (amr)',
  idpTestLinked: (user: string) => `Signs in as ${user} (already linked).`,
  idpTestLink: (user: string, by: string) => `Would link to ${user} (matched by ${by}) and sign in.`,
  idpTestCreate: (user: string) => `Would create the user ${user} and sign in.`,
  idpTestRefused: (reason: string) => `Would be refused: ${reason}.`,
  forgotPassword: 'Forgot your password?',
  forgotTitle: 'Reset your password',
  forgotHint: 'Enter your login name. If it belongs to an account with an e-mail address, we send a link to set a new password.',
  sendLink: 'Send the link',
  resetRequested: 'If the login name belongs to an account with an e-mail address, a link is on its way. It works for one hour, once.',
  backToSignIn: 'Back to sign-in',
  newPasswordTitle: 'Choose a new password',
  invitationTitle: 'Welcome',
  invitationHint: (user: string) => `Choose the password of your account ${user}.`,
  resetHint: (user: string) => `Choose a new password for ${user}.`,
  newPassword: 'New password',
  passwordConfirm: 'Repeat the password',
  setPassword: 'Set the password',
  passwordMismatch: 'The two passwords differ.',
  passwordSet: 'Your password is set. Sign in to your application with it.',
  invalidLink: 'This link is unknown, used, replaced by a newer one or expired. Ask for a new one.',
  passwordChangeTitle: 'Change your password',
  passwordChangeHint: 'Your administrator asks you to choose a new password before you continue.',
  verifyEmailTitle: 'Confirm your e-mail address',
  verifyEmailSent: (email: string) => `We sent a link to ${email}. Open it, confirm, then continue here.`,
  verifyEmailContinue: 'I have confirmed it — continue',
  verifyEmailResend: 'Send the link again',
  verifyEmailNotYet: 'The address is not confirmed yet. Open the link in the newest mail first.',
  verifyEmailResent: 'A new link is on its way; the earlier one no longer works.',
  verifyEmailMissing: 'Your account has no e-mail address to confirm. Ask your administrator to add one.',
  verifyEmailConfirmHint: (user: string) => `Confirm the e-mail address of ${user}.`,
  verifyEmailConfirm: 'Confirm my address',
  emailVerified: 'Your e-mail address is confirmed. You can go back to the sign-in.',
  emailVerifiedElsewhere:
    'This e-mail address is already confirmed for another account of your organization, so it cannot be confirmed for this one. Nothing was changed; ask your administrator.',
};

type Messages = typeof EN;

const DE: Messages = {
  title: 'Anmelden',
  loginName: 'Loginname',
  password: 'Passwort',
  next: 'Weiter',
  signIn: 'Anmelden',
  invalidCredentials: 'Loginname oder Passwort ist falsch.',
  busy: 'Gerade werden zu viele Anmeldungen geprüft. Versuche es in ein paar Sekunden erneut.',
  tooManyAttempts: (minutes: number) => `Zu viele fehlgeschlagene Anmeldeversuche. Versuche es in ${minutes} ${minutes === 1 ? 'Minute' : 'Minuten'} erneut.`,
  selectAccount: 'Konto auswählen',
  sessionEnded: 'Deine Sitzung ist abgelaufen. Gib dein Passwort ein, um fortzufahren.',
  otherAccount: 'Anderes Konto verwenden',
  register: 'Konto erstellen',
  registerTitle: 'Registrieren',
  firstName: 'Vorname',
  lastName: 'Nachname',
  email: 'E-Mail',
  userName: 'Benutzername',
  registrationFailed: 'Die Registrierung konnte nicht abgeschlossen werden.',
  logoutTitle: 'Abmelden',
  logoutQuestion: 'Möchtest du dich abmelden?',
  logoutYes: 'Ja, abmelden',
  logoutNo: 'Nein, angemeldet bleiben',
  loggedOut: 'Du bist abgemeldet.',
  errorTitle: 'Etwas ist schiefgelaufen',
  samlContinueTitle: 'Du wirst angemeldet',
  samlContinueHint: 'Du wirst zur Anwendung zurückgeleitet. Falls nichts passiert, fahre mit der Schaltfläche fort.',
  samlContinue: 'Weiter',
  errorHint: 'Die Anfrage konnte nicht verarbeitet werden. Kehre zur Anwendung zurück und versuche es erneut.',
  cancel: 'Abbrechen',
  secondFactorTitle: 'Bestätige, dass du es bist',
  codeLabel: 'Code aus deiner Authenticator-App oder ein Wiederherstellungscode',
  verify: 'Bestätigen',
  usePasskey: 'Passkey verwenden',
  signInWithPasskey: 'Mit einem Passkey anmelden',
  invalidCode: 'Der Code ist falsch, abgelaufen oder wurde schon verwendet.',
  passkeyRefused: 'Der Passkey wurde nicht akzeptiert.',
  passkeyUnsupported: 'Dieser Browser kann hier keine Passkeys verwenden.',
  enrolTitle: 'Schütze dein Konto',
  enrolRequired: 'Deine Organisation verlangt einen zweiten Faktor. Richte einen ein, um fortzufahren.',
  enrolOffer: 'Füge einen zweiten Faktor hinzu, damit ein Passwort allein nicht genügt, um sich als du anzumelden.',
  setUpTotp: 'Authenticator-App einrichten',
  setUpPasskey: 'Passkey erstellen',
  skip: 'Jetzt nicht',
  totpTitle: 'Authenticator-App einrichten',
  totpInstructions: 'Füge diesen Schlüssel in deiner Authenticator-App hinzu oder öffne den Link auf deinem Telefon; gib dann den Code ein, den die App zeigt.',
  totpLink: 'In einer Authenticator-App öffnen',
  code: 'Code',
  recoveryTitle: 'Deine Wiederherstellungscodes',
  recoveryInstructions:
    'Bewahre diese Codes sicher auf. Jeder funktioniert einmal, wenn du deine anderen Faktoren nicht verwenden kannst. Sie werden nur jetzt angezeigt.',
  continue: 'Weiter',
  signInWith: (name: string) => `Anmelden mit ${name}`,
  orSignInWith: 'Oder anmelden mit',
  passwordLoginOff: 'Deine Organisation meldet dich über ihren Identitätsanbieter an. Gib deinen Loginnamen ein oder wähle deinen Identitätsanbieter.',
  idpNoAccount: 'Für die Identität, mit der du dich angemeldet hast, gibt es hier kein Konto. Bitte deine Administration, eines einzurichten.',
  idpRefused: 'Die Anmeldung über deinen Identitätsanbieter konnte nicht angenommen werden. Beginne erneut in der Anwendung.',
  idpInitiatedRefused:
    'Dein Identitätsanbieter darf hier keine Anmeldung beginnen: diese Organisation nimmt keine beim Identitätsanbieter begonnenen Anmeldungen an. Öffne die Anwendung und melde dich dort an.',
  idpUnavailable: 'Dein Identitätsanbieter ist nicht erreichbar. Versuche es in ein paar Minuten erneut.',
  idpFirstContact: (name: string) => `${name} wurde zum ersten Mal erreicht. Fahre fort, um dich dort anzumelden.`,
  idpNoSubject:
    'Dein Identitätsanbieter hat nicht so mitgeteilt, wer du bist, wie diese Organisation es erwartet (die Angabe, die dich benennt, fehlt). Bitte deine Administration, die Einstellungen des Identitätsanbieters zu prüfen.',
  idpInactive: 'Dieses Konto ist deaktiviert oder gesperrt.',
  appAccessDenied: (app: string) => `Sie haben keinen Zugang zu ${app}. Bitten Sie Ihre Administration, ihn Ihnen zu gewähren.`,
  idpTestTitle: 'Test-Anmeldung',
  idpTestHint: 'Es wurde nichts verknüpft oder angelegt und keine Sitzung begonnen: diese Seite zeigt nur, was eine Anmeldung täte.',
  idpTestSubject: 'Subjekt beim Identitätsanbieter',
  idpTestClaims: 'Was der Identitätsanbieter gesendet hat',
  idpTestMethods: 'Genannte Verfahren (amr)',
  idpTestLinked: (user: string) => `Meldet als ${user} an (bereits verknüpft).`,
  idpTestLink: (user: string, by: string) => `Würde mit ${user} verknüpfen (gefunden über ${by}) und anmelden.`,
  idpTestCreate: (user: string) => `Würde den Benutzer ${user} anlegen und anmelden.`,
  idpTestRefused: (reason: string) => `Würde abgelehnt: ${reason}.`,
  forgotPassword: 'Passwort vergessen?',
  forgotTitle: 'Passwort zurücksetzen',
  forgotHint: 'Geben Sie Ihren Loginnamen ein. Gehört er zu einem Konto mit E-Mail-Adresse, senden wir einen Link, mit dem Sie ein neues Passwort festlegen.',
  sendLink: 'Link senden',
  resetRequested: 'Wenn der Loginname zu einem Konto mit E-Mail-Adresse gehört, ist ein Link unterwegs. Er gilt eine Stunde und nur einmal.',
  backToSignIn: 'Zurück zur Anmeldung',
  newPasswordTitle: 'Neues Passwort wählen',
  invitationTitle: 'Willkommen',
  invitationHint: (user: string) => `Wählen Sie das Passwort Ihres Kontos ${user}.`,
  resetHint: (user: string) => `Wählen Sie ein neues Passwort für ${user}.`,
  newPassword: 'Neues Passwort',
  passwordConfirm: 'Passwort wiederholen',
  setPassword: 'Passwort festlegen',
  passwordMismatch: 'Die beiden Passwörter unterscheiden sich.',
  passwordSet: 'Ihr Passwort ist festgelegt. Melden Sie sich damit bei Ihrer Anwendung an.',
  invalidLink: 'Dieser Link ist unbekannt, benutzt, durch einen neueren ersetzt oder abgelaufen. Fordern Sie einen neuen an.',
  passwordChangeTitle: 'Passwort ändern',
  passwordChangeHint: 'Ihre Administration bittet Sie, ein neues Passwort zu wählen, bevor Sie fortfahren.',
  verifyEmailTitle: 'E-Mail-Adresse bestätigen',
  verifyEmailSent: (email: string) => `Wir haben einen Link an ${email} gesendet. Öffnen Sie ihn, bestätigen Sie und fahren Sie dann hier fort.`,
  verifyEmailContinue: 'Bestätigt – weiter',
  verifyEmailResend: 'Link erneut senden',
  verifyEmailNotYet: 'Die Adresse ist noch nicht bestätigt. Öffnen Sie zuerst den Link in der neuesten E-Mail.',
  verifyEmailResent: 'Ein neuer Link ist unterwegs; der frühere gilt nicht mehr.',
  verifyEmailMissing: 'Ihr Konto hat keine E-Mail-Adresse zum Bestätigen. Bitten Sie Ihre Administration, eine einzutragen.',
  verifyEmailConfirmHint: (user: string) => `Bestätigen Sie die E-Mail-Adresse von ${user}.`,
  verifyEmailConfirm: 'Adresse bestätigen',
  emailVerified: 'Ihre E-Mail-Adresse ist bestätigt. Sie können zur Anmeldung zurückkehren.',
  emailVerifiedElsewhere:
    'Diese E-Mail-Adresse ist bereits für ein anderes Konto Ihrer Organisation bestätigt und kann für dieses nicht bestätigt werden. Nichts wurde geändert; wenden Sie sich an Ihre Administration.',
};

const CATALOG: Record<string, Messages> = { en: EN, de: DE };

export type Locale = 'en' | 'de';
export type { Messages };

/**
 * The language of a page: the first supported tag of `ui_locales` (OIDC Core §3.1.2.1), then of
 * Accept-Language (RFC 9110 §12.5.4, by q-value), else English.
 */
export function chooseLocale(uiLocales: string | undefined, acceptLanguage: string | undefined): Locale {
  const fromUi = (uiLocales ?? '').split(' ').map(primary).find(supported);
  if (fromUi) return fromUi;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: primary(tag), q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((x) => x.q > 0)
    .sort((a, b) => b.q - a.q);
  return ranked.map((x) => x.tag).find(supported) ?? 'en';
}

export function messages(locale: Locale): Messages {
  return CATALOG[locale];
}

function primary(tag: string | undefined): string {
  return (tag ?? '').trim().toLowerCase().split('-')[0];
}

function supported(tag: string): tag is Locale {
  return Object.hasOwn(CATALOG, tag);
}
