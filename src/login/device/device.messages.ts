import type { Locale } from '../messages.js';

/** Texts of the device pages (RFC 8628 §3.3), English and German; the same keys in both. */
const EN = {
  title: 'Connect a device',
  enterCode: 'Enter the code your device shows.',
  userCode: 'Code',
  next: 'Next',
  unknownCode: 'This code is unknown. Check it against your device and enter it again.',
  expiredCode: 'This code has expired. Start again on your device to get a new one.',
  usedCode: 'This code was used already. Start again on your device to get a new one.',
  deniedCode: 'This code was denied. Start again on your device if you want to connect it.',
  noCode: 'Enter the code your device shows.',
  failed: 'The request could not be processed. Start again on your device.',
  tooManyAttempts: (minutes: number) => `Too many wrong codes from your network. Try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
  confirmTitle: 'Connect this device?',
  confirmQuestion: (app: string, org: string) => `The application “${app}” of ${org} asks to sign you in on a device.`,
  confirmCode: 'Go on only if your device shows this code, and only if you started this sign-in yourself:',
  confirmWarning: 'If someone sent you this code or this page, deny: they would be signed in as you.',
  confirm: 'Yes, connect it',
  deny: 'No, deny',
  successTitle: 'Device connected',
  success: (app: string) => `You are signed in to “${app}” on your device. You can close this page.`,
  deniedTitle: 'Device not connected',
  denied: 'The device was not connected. You can close this page.',
};

export type DeviceMessages = typeof EN;

const DE: DeviceMessages = {
  title: 'Gerät verbinden',
  enterCode: 'Gib den Code ein, den dein Gerät anzeigt.',
  userCode: 'Code',
  next: 'Weiter',
  unknownCode: 'Dieser Code ist unbekannt. Vergleiche ihn mit deinem Gerät und gib ihn erneut ein.',
  expiredCode: 'Dieser Code ist abgelaufen. Beginne auf deinem Gerät neu, um einen neuen zu erhalten.',
  usedCode: 'Dieser Code wurde schon verwendet. Beginne auf deinem Gerät neu, um einen neuen zu erhalten.',
  deniedCode: 'Dieser Code wurde abgelehnt. Beginne auf deinem Gerät neu, wenn du es verbinden möchtest.',
  noCode: 'Gib den Code ein, den dein Gerät anzeigt.',
  failed: 'Die Anfrage konnte nicht verarbeitet werden. Beginne auf deinem Gerät neu.',
  tooManyAttempts: (minutes: number) => `Zu viele falsche Codes aus deinem Netz. Versuche es in ${minutes} ${minutes === 1 ? 'Minute' : 'Minuten'} erneut.`,
  confirmTitle: 'Dieses Gerät verbinden?',
  confirmQuestion: (app: string, org: string) => `Die Anwendung „${app}“ von ${org} möchte dich auf einem Gerät anmelden.`,
  confirmCode: 'Fahre nur fort, wenn dein Gerät diesen Code zeigt und du diese Anmeldung selbst begonnen hast:',
  confirmWarning: 'Hat dir jemand diesen Code oder diese Seite geschickt, lehne ab: er wäre sonst als du angemeldet.',
  confirm: 'Ja, verbinden',
  deny: 'Nein, ablehnen',
  successTitle: 'Gerät verbunden',
  success: (app: string) => `Du bist auf deinem Gerät bei „${app}“ angemeldet. Du kannst diese Seite schließen.`,
  deniedTitle: 'Gerät nicht verbunden',
  denied: 'Das Gerät wurde nicht verbunden. Du kannst diese Seite schließen.',
};

const CATALOG: Record<Locale, DeviceMessages> = { en: EN, de: DE };

export function deviceMessages(locale: Locale): DeviceMessages {
  return CATALOG[locale];
}
