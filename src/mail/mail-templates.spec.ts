import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { mailLocale, renderMail } from './mail-templates.js';

describe('mail templates', () => {
  it('write in the person’s language, right to left in Arabic and Hebrew, with the language’s plural', () => {
    const invitation = { purpose: 'invitation', orgName: 'Contoso', name: 'Lina', link: 'https://id.example/l', validHours: 72 } as const;
    const arabic = renderMail({ ...invitation, locale: mailLocale('ar-EG') });
    assert.match(arabic.html, /^<!DOCTYPE html><html lang="ar" dir="rtl">/);
    assert.match(arabic.subject, /Contoso/);
    assert.doesNotMatch(arabic.text, /invited|password/i);
    const polish = renderMail({ ...invitation, locale: mailLocale('pl'), validHours: 2 });
    assert.match(polish.text, /2 godziny/);
    assert.equal(renderMail({ ...invitation, locale: mailLocale('en'), validHours: 1 }).text.includes('1 hour,'), true);
    assert.equal(renderMail({ ...invitation, locale: mailLocale('en') }).text.includes('3 days'), true);
  });

  it('fall back to English for a language they are not written in, and greet without a name when there is none', () => {
    assert.equal(mailLocale('zh-TW'), 'en');
    assert.equal(mailLocale(null), 'en');
    const mail = renderMail({ purpose: 'email_changed', locale: 'en', orgName: 'Contoso', name: '' });
    assert.match(mail.text, /^Hello,\n/);
  });

  it('escape every value from outside in the HTML part', () => {
    const mail = renderMail({ purpose: 'invitation', locale: 'he', orgName: '<b>Org</b>', name: '"x"', link: 'https://id.example/?a=1&b=2' });
    assert.match(mail.html, /dir="rtl"/);
    assert.doesNotMatch(mail.html, /<b>Org<\/b>/);
    assert.match(mail.html, /href="https:\/\/id\.example\/\?a=1&#38;b=2"/);
  });

  it('wear the design system’s tokens inline, light by default and dark where the client honours it, the text part plain', () => {
    const css = readFileSync(new URL('../common/design/design.css', import.meta.url), 'utf8');
    const lightPrimary = /--pc-primary:\s*([^;]+);/.exec(css)![1]!;
    const darkBlock = css.slice(css.indexOf('prefers-color-scheme: dark'));
    const darkSurface = /--pc-surface:\s*([^;]+);/.exec(darkBlock)![1]!;
    const mail = renderMail({ purpose: 'password_reset', locale: 'en', orgName: 'Contoso', name: 'Ada', link: 'https://id.example/r', validHours: 1 });
    // The action is a button in the primary colour, its link the first of the message (tests and people follow it).
    assert.match(mail.html, new RegExp(`<a href="https://id\\.example/r" class="pc-mail-button" style="[^"]*background:${lightPrimary}`));
    assert.match(mail.html, /<meta name="color-scheme" content="light dark">/);
    assert.match(mail.html, new RegExp(`@media \\(prefers-color-scheme: dark\\)\\{[^<]*\\.pc-mail-card\\{background:${darkSurface}!important`));
    assert.match(mail.html, /<table role="presentation"/);
    assert.doesNotMatch(mail.html, /style="[^"]*var\(--/, 'no custom property: mail clients do not resolve them');
    assert.doesNotMatch(mail.text, /</, 'the text part has no markup');
    assert.match(mail.text, /: https:\/\/id\.example\/r\n/);
  });
});
