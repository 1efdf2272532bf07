import { esc } from '../common/text/html-escape.js';
import { supportedLocale, textDirection } from '../texts/locales.js';
import type { Locale } from '../texts/locales.js';
import { formatText } from '../texts/texts.js';
import type { TextKey } from '../texts/texts.js';
import type { MailPurpose } from './mail-message.entity.js';
import { MAIL_DARK_STYLE, MAIL_LIGHT as L } from './mail-look.js';

/** What a message says; the link is built from `PUBLIC_URL` by the caller and names no login name (docs/mail.md, "Codes"). */
export interface MailContext {
  purpose: MailPurpose;
  locale: Locale;
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

/** The user's preferred language if the mails are written in it, else English (docs/languages.md). */
export function mailLocale(preferredLanguage: string | null | undefined): Locale {
  return supportedLocale(preferredLanguage) ?? 'en';
}

/** Text and HTML parts of one message; every value from outside is escaped in the HTML part. */
export function renderMail(ctx: MailContext): RenderedMail {
  const say = (part: 'subject' | 'lead' | 'action') => formatText(ctx.locale, `mail.${ctx.purpose}.${part}` as TextKey, { org: ctx.orgName });
  const hello = ctx.name ? formatText(ctx.locale, 'mail.hello', { name: ctx.name }) : formatText(ctx.locale, 'mail.helloNoName');
  const valid = ctx.validHours ? validity(ctx.locale, ctx.validHours) : undefined;
  const ignore = formatText(ctx.locale, 'mail.ignore');
  const subject = say('subject');
  const lines = [hello, '', say('lead')];
  if (ctx.link) lines.push('', `${say('action')}: ${ctx.link}`);
  if (valid) lines.push('', valid);
  lines.push('', ignore);
  // A notice (no link) has no action text.
  const html = mailHtml(ctx, { subject, hello, lead: say('lead'), action: ctx.link ? say('action') : '', valid, ignore });
  return { subject, text: lines.join('\n'), html };
}

/** Two days and more read as days. */
function validity(locale: Locale, hours: number): string {
  return hours >= 48 ? formatText(locale, 'mail.validDays', { days: hours / 24 }) : formatText(locale, 'mail.validHours', { hours });
}

/**
 * The HTML part in the design system's look (docs/design.md, "Mails"): a card on the page colour, the organization
 * above the subject, the action as a button. Tables and inline styles, as mail clients need (many drop `<style>`
 * and ignore classes); the dark scheme is a `<style>` for the clients that honour `prefers-color-scheme`.
 */
function mailHtml(ctx: MailContext, says: { subject: string; hello: string; lead: string; action: string; valid?: string; ignore: string }): string {
  const para = (text: string, muted = false) =>
    `<p class="${muted ? 'pc-mail-muted' : 'pc-mail-text'}" style="margin:0 0 ${L.space(4)}px;color:${muted ? L.muted : L.text};font-size:${muted ? L.textSm : L.textMd}px">${esc(text)}</p>`;
  const table = 'role="presentation" cellpadding="0" cellspacing="0" border="0"';
  const parts = [
    `<p class="pc-mail-muted" style="margin:0 0 ${L.space(2)}px;color:${L.muted};font-size:${L.textSm}px">${esc(ctx.orgName)}</p>`,
    `<h1 class="pc-mail-text" style="margin:0 0 ${L.space(5)}px;color:${L.text};font-size:${L.textXl}px;line-height:1.3;font-weight:600">${esc(says.subject)}</h1>`,
    para(says.hello),
    para(says.lead),
  ];
  if (ctx.link) {
    parts.push(
      `<table ${table} style="margin:${L.space(2)}px 0 ${L.space(5)}px"><tr><td class="pc-mail-button" style="border-radius:${L.radius};background:${L.primary}">` +
        `<a href="${esc(ctx.link)}" class="pc-mail-button" style="display:inline-block;padding:${L.space(3)}px ${L.space(5)}px;border-radius:${L.radius};background:${L.primary};color:${L.onPrimary};font-weight:600;font-size:${L.textMd}px;text-decoration:none">${esc(says.action)}</a>` +
        '</td></tr></table>',
    );
  }
  if (says.valid) parts.push(para(says.valid, true));
  parts.push(para(says.ignore, true));
  const head = `<meta charset="utf-8"><meta name="viewport" content="width=device-width"><meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark"><title>${esc(says.subject)}</title><style>@media (prefers-color-scheme: dark){${MAIL_DARK_STYLE}}</style>`;
  const card = `<table ${table} width="100%" class="pc-mail-card" style="max-width:${L.cardWidth}px;background:${L.surface};border:1px solid ${L.border};border-radius:${L.radiusLg}"><tr><td style="padding:${L.space(6)}px ${L.space(5)}px;font-family:${L.font};line-height:1.5">${parts.join('')}</td></tr></table>`;
  return `<!DOCTYPE html><html lang="${ctx.locale}" dir="${textDirection(ctx.locale)}"><head>${head}</head><body class="pc-mail-bg" style="margin:0;padding:0;background:${L.bg}"><table ${table} width="100%" class="pc-mail-bg" style="background:${L.bg}"><tr><td align="center" style="padding:${L.space(6)}px ${L.space(4)}px">${card}</td></tr></table></body></html>`;
}
