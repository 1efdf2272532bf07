import { esc } from '../common/text/html-escape.js';
import type { MailPurpose } from './mail-message.entity.js';

export type MailLocale = 'en' | 'de';

/** What a message says; the link is built from `PUBLIC_URL` by the caller and names no login name (docs/mail.md, "Codes"). */
export interface MailContext {
  purpose: MailPurpose;
  locale: MailLocale;
  orgName: string;
  /** How the user is greeted: display name or given name, never the login name. */
  name: string;
  /** The one-time link; absent for a notice (`email_changed`). */
  link?: string;
  /** How long the link works, in hours. */
  validHours?: number;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

interface Wording {
  subject: (org: string) => string;
  lead: (org: string) => string;
  action?: string;
}

const WORDING: Record<MailLocale, Record<MailPurpose, Wording> & { hello: (name: string) => string; valid: (hours: number) => string; ignore: string }> = {
  en: {
    hello: (name) => (name ? `Hello ${name},` : 'Hello,'),
    valid: (hours) => (hours >= 48 ? `The link works for ${hours / 24} days, once.` : `The link works for ${hours} hour${hours === 1 ? '' : 's'}, once.`),
    ignore: 'If you did not expect this message, you can ignore it.',
    invitation: {
      subject: (org) => `${org}: you are invited`,
      lead: (org) => `${org} has created an account for you. Choose your password to sign in.`,
      action: 'Set your password',
    },
    password_reset: {
      subject: (org) => `${org}: reset your password`,
      lead: () => 'Someone asked to reset the password of your account. Choose a new one here.',
      action: 'Reset your password',
    },
    email_verification: {
      subject: (org) => `${org}: confirm your e-mail address`,
      lead: () => 'Please confirm that this e-mail address is yours.',
      action: 'Confirm your address',
    },
    email_changed: {
      subject: (org) => `${org}: your e-mail address was changed`,
      lead: () => 'The e-mail address of your account was changed. If you did not do this, contact your administrator.',
    },
  },
  de: {
    hello: (name) => (name ? `Hallo ${name},` : 'Hallo,'),
    valid: (hours) =>
      hours >= 48 ? `Der Link gilt ${hours / 24} Tage und nur einmal.` : `Der Link gilt ${hours} Stunde${hours === 1 ? '' : 'n'} und nur einmal.`,
    ignore: 'Wenn Sie diese Nachricht nicht erwartet haben, können Sie sie ignorieren.',
    invitation: {
      subject: (org) => `${org}: Sie sind eingeladen`,
      lead: (org) => `${org} hat ein Konto für Sie angelegt. Wählen Sie Ihr Passwort, um sich anzumelden.`,
      action: 'Passwort festlegen',
    },
    password_reset: {
      subject: (org) => `${org}: Passwort zurücksetzen`,
      lead: () => 'Jemand hat verlangt, das Passwort Ihres Kontos zurückzusetzen. Wählen Sie hier ein neues.',
      action: 'Passwort zurücksetzen',
    },
    email_verification: {
      subject: (org) => `${org}: E-Mail-Adresse bestätigen`,
      lead: () => 'Bitte bestätigen Sie, dass diese E-Mail-Adresse Ihnen gehört.',
      action: 'Adresse bestätigen',
    },
    email_changed: {
      subject: (org) => `${org}: Ihre E-Mail-Adresse wurde geändert`,
      lead: () => 'Die E-Mail-Adresse Ihres Kontos wurde geändert. Wenn Sie das nicht waren, wenden Sie sich an Ihre Administration.',
    },
  },
};

/** The user's preferred language if it is one the messages are written in, else English. */
export function mailLocale(preferredLanguage: string | null | undefined): MailLocale {
  return (preferredLanguage ?? '').toLowerCase().split(/[-_]/)[0] === 'de' ? 'de' : 'en';
}

/** Text and HTML parts of one message; every value from outside is escaped in the HTML part. */
export function renderMail(ctx: MailContext): RenderedMail {
  const w = WORDING[ctx.locale];
  const purpose = w[ctx.purpose];
  const lines = [w.hello(ctx.name), '', purpose.lead(ctx.orgName)];
  if (ctx.link) lines.push('', `${purpose.action}: ${ctx.link}`);
  if (ctx.validHours) lines.push('', w.valid(ctx.validHours));
  lines.push('', w.ignore);
  const paragraphs = [esc(w.hello(ctx.name)), esc(purpose.lead(ctx.orgName))].map((p) => `<p>${p}</p>`);
  if (ctx.link) paragraphs.push(`<p><a href="${esc(ctx.link)}">${esc(purpose.action)}</a></p>`);
  if (ctx.validHours) paragraphs.push(`<p>${esc(w.valid(ctx.validHours))}</p>`);
  paragraphs.push(`<p>${esc(w.ignore)}</p>`);
  const html = `<!DOCTYPE html><html lang="${ctx.locale}"><head><meta charset="utf-8"><title>${esc(purpose.subject(ctx.orgName))}</title></head><body style="font-family:sans-serif">${paragraphs.join('')}</body></html>`;
  return { subject: purpose.subject(ctx.orgName), text: lines.join('\n'), html };
}
