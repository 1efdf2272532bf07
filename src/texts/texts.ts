import { IntlMessageFormat } from 'intl-messageformat';
import { ar } from './catalogs/ar.js';
import { de } from './catalogs/de.js';
import { en } from './catalogs/en.js';
import type { Catalog, TextKey } from './catalogs/en.js';
import { es } from './catalogs/es.js';
import { fr } from './catalogs/fr.js';
import { he } from './catalogs/he.js';
import { it } from './catalogs/it.js';
import { ja } from './catalogs/ja.js';
import { nl } from './catalogs/nl.js';
import { pl } from './catalogs/pl.js';
import { ptBR } from './catalogs/pt-BR.js';
import { zhCN } from './catalogs/zh-CN.js';
import type { Locale } from './locales.js';

export type { TextKey };

export const CATALOGS: Record<Locale, Catalog> = { en, de, fr, es, it, 'pt-BR': ptBR, nl, pl, ja, 'zh-CN': zhCN, ar, he };

/** Values a message's `{arguments}` take. */
export type TextValues = Record<string, string | number>;

/**
 * An organization's own texts for one language (docs/branding.md, "Texts"), replacing the catalog's by key. They are
 * plain text: compiled with tags ignored, so `<b>` stays two characters that the page escapes like any text.
 */
export type TextOverrides = Partial<Record<TextKey, string>>;

const compiled = new Map<string, IntlMessageFormat>();
const compiledOverrides = new WeakMap<TextOverrides, Map<TextKey, IntlMessageFormat>>();

/**
 * The text of `key` in `locale` with its arguments filled in, the organization's own text first. Messages are
 * compiled on first use and kept: there are a few hundred per language, and a page formats a dozen; an
 * organization's are kept with its overrides object, which lives as long as its branding is unchanged.
 */
export function formatText(locale: Locale, key: TextKey, values?: TextValues, overrides?: TextOverrides): string {
  const own = overrides?.[key];
  if (own !== undefined && overrides) return String(overrideMessage(overrides, key, own, locale).format(values));
  const id = `${locale}\u0000${key}`;
  let message = compiled.get(id);
  if (!message) {
    message = new IntlMessageFormat(CATALOGS[locale][key], locale);
    compiled.set(id, message);
  }
  return String(message.format(values));
}

function overrideMessage(overrides: TextOverrides, key: TextKey, text: string, locale: Locale): IntlMessageFormat {
  let byKey = compiledOverrides.get(overrides);
  if (!byKey) compiledOverrides.set(overrides, (byKey = new Map()));
  let message = byKey.get(key);
  if (!message) {
    message = new IntlMessageFormat(text, locale, undefined, { ignoreTag: true });
    byKey.set(key, message);
  }
  return message;
}

/** The keys under `prefix.` without it (`login.title` → `title`). */
export type KeysUnder<P extends string> = TextKey extends infer K ? (K extends `${P}.${infer R}` ? R : never) : never;

type Arguments = Readonly<Record<string, readonly string[]>>;

/**
 * The texts of one page family as an object: a key without arguments is its string, a key with arguments a function
 * taking them in the order `args` names them (so `t.signInWith(name)` reads as the sentence does).
 */
export type Texts<P extends string, A extends Arguments> = {
  readonly [K in KeysUnder<P>]: K extends keyof A ? (...values: ValuesOf<A[K]>) => string : string;
};

/** One value per argument name, as a tuple. */
type ValuesOf<N extends readonly string[]> = { -readonly [I in keyof N]: string | number };

/**
 * Builds the `Texts` of every language for one page family, once; with an organization's `overrides` for that
 * language, once per overrides object (a changed branding is a new object, the old one's texts are collected).
 */
export function textsOf<P extends string, A extends Arguments>(prefix: P, args: A): (locale: Locale, overrides?: TextOverrides) => Texts<P, A> {
  const byLocale = new Map<Locale, Texts<P, A>>();
  const byOverrides = new WeakMap<TextOverrides, Texts<P, A>>();
  return (locale, overrides) => {
    if (overrides && Object.keys(overrides).some((key) => key.startsWith(`${prefix}.`))) {
      let own = byOverrides.get(overrides);
      if (!own) byOverrides.set(overrides, (own = build(prefix, args, locale, overrides)));
      return own;
    }
    let texts = byLocale.get(locale);
    if (!texts) {
      texts = build(prefix, args, locale);
      byLocale.set(locale, texts);
    }
    return texts;
  };
}

function build<P extends string, A extends Arguments>(prefix: P, args: A, locale: Locale, overrides?: TextOverrides): Texts<P, A> {
  const texts: Record<string, unknown> = {};
  for (const key of Object.keys(en) as TextKey[]) {
    if (!key.startsWith(`${prefix}.`)) continue;
    const name = key.slice(prefix.length + 1);
    const names = args[name];
    texts[name] = names
      ? (...values: (string | number)[]) => formatText(locale, key, Object.fromEntries(names.map((n, i) => [n, values[i] ?? ''])), overrides)
      : formatText(locale, key, undefined, overrides);
  }
  return texts as Texts<P, A>;
}
