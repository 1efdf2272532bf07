import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TYPE, parse } from '@formatjs/icu-messageformat-parser';
import type { MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { en } from './catalogs/en.js';
import type { TextKey } from './catalogs/en.js';
import { LOCALES, chooseLocale, supportedLocale, textDirection } from './locales.js';
import { CATALOGS, formatText } from './texts.js';

/** The argument names of a message and the plural categories each of its plurals spells out. */
function shape(message: string): { args: string[]; plurals: string[][] } {
  const args = new Set<string>();
  const plurals: string[][] = [];
  const walk = (elements: MessageFormatElement[]) => {
    for (const element of elements) {
      if (element.type === TYPE.argument || element.type === TYPE.number || element.type === TYPE.date || element.type === TYPE.time) args.add(element.value);
      if (element.type === TYPE.plural || element.type === TYPE.select) {
        args.add(element.value);
        if (element.type === TYPE.plural) plurals.push(Object.keys(element.options));
        for (const option of Object.values(element.options)) walk(option.value);
      }
    }
  };
  walk(parse(message));
  return { args: [...args].sort(), plurals };
}

describe('text catalogs', () => {
  it('every language has every key of English and no other', () => {
    const keys = Object.keys(en).sort();
    for (const locale of LOCALES) assert.deepEqual(Object.keys(CATALOGS[locale]).sort(), keys, locale);
  });

  it('every message parses as ICU MessageFormat and takes exactly the arguments of its English original', () => {
    for (const locale of LOCALES) {
      for (const key of Object.keys(en) as TextKey[]) {
        assert.deepEqual(shape(CATALOGS[locale][key]).args, shape(en[key]).args, `${locale} ${key}`);
      }
    }
  });

  it('every plural spells out each category the language distinguishes (CLDR, through Intl.PluralRules)', () => {
    for (const locale of LOCALES) {
      const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
      for (const key of Object.keys(en) as TextKey[]) {
        for (const options of shape(CATALOGS[locale][key]).plurals) {
          for (const category of categories) assert.ok(options.includes(category), `${locale} ${key}: no "${category}"`);
        }
      }
    }
  });

  it('formats plurals by the language’s rules', () => {
    assert.equal(formatText('en', 'login.tooManyAttempts', { minutes: 1 }), 'Too many failed sign-in attempts. Try again in 1 minute.');
    assert.equal(formatText('en', 'login.tooManyAttempts', { minutes: 5 }), 'Too many failed sign-in attempts. Try again in 5 minutes.');
    assert.match(formatText('pl', 'login.tooManyAttempts', { minutes: 2 }), /2 minuty/);
    assert.match(formatText('pl', 'login.tooManyAttempts', { minutes: 5 }), /5 minut\b/);
  });

  it('Japanese and Chinese pages carry no English sentence', () => {
    for (const locale of ['ja', 'zh-CN'] as const) {
      for (const key of Object.keys(en) as TextKey[]) {
        const words = CATALOGS[locale][key].replace(/\{[^}]*\}/g, '').match(/[A-Za-z]{4,}/g) ?? [];
        const names = words.filter((w) => !['OpenID', 'Connect', 'SAML'].includes(w));
        assert.deepEqual(names, [], `${locale} ${key}`);
      }
    }
  });
});

describe('which language', () => {
  it('takes ui_locales first, then the person’s language, then Accept-Language by q-value, then the organization’s, else English', () => {
    assert.equal(chooseLocale('xx ja', 'de'), 'ja');
    assert.equal(chooseLocale(undefined, 'de', { preferredLanguage: 'fr-CA' }), 'fr');
    assert.equal(chooseLocale(undefined, 'xx, nl;q=0.5, he;q=0.9'), 'he');
    assert.equal(chooseLocale(undefined, 'xx', { organizationDefault: 'pl' }), 'pl');
    assert.equal(chooseLocale(undefined, undefined), 'en');
    assert.equal(chooseLocale(undefined, 'de;q=0'), 'en');
    // The same header again (each is ranked once and kept), and past the 256 kept.
    assert.equal(chooseLocale(undefined, 'xx, nl;q=0.5, he;q=0.9'), 'he');
    assert.equal(chooseLocale(undefined, 'xx', { organizationDefault: 'pl' }), 'pl');
    for (let i = 0; i < 300; i++) assert.equal(chooseLocale(undefined, `x${i}, es;q=0.${(i % 9) + 1}`), 'es');
    assert.equal(chooseLocale(undefined, 'xx, nl;q=0.5, he;q=0.9'), 'he');
  });

  it('matches a region or script to the variety it is written in, and Traditional Chinese to nothing', () => {
    assert.equal(supportedLocale('pt'), 'pt-BR');
    assert.equal(supportedLocale('pt-PT'), 'pt-BR');
    assert.equal(supportedLocale('zh-Hans-CN'), 'zh-CN');
    assert.equal(supportedLocale('zh_SG'), 'zh-CN');
    assert.equal(supportedLocale('zh-TW'), undefined);
    assert.equal(supportedLocale('zh-Hant'), undefined);
    assert.equal(supportedLocale('iw'), 'he');
    assert.equal(supportedLocale(''), undefined);
    assert.equal(chooseLocale(undefined, 'zh-TW, en;q=0.8'), 'en');
  });

  it('writes Arabic and Hebrew right to left', () => {
    assert.deepEqual(
      LOCALES.filter((l) => textDirection(l) === 'rtl'),
      ['ar', 'he'],
    );
  });
});
