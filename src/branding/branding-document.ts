import { IntlMessageFormat } from 'intl-messageformat';
import { DomainError } from '../common/errors/domain-error.js';
import { en } from '../texts/catalogs/en.js';
import type { TextKey } from '../texts/catalogs/en.js';
import { LOCALES } from '../texts/locales.js';
import type { Locale } from '../texts/locales.js';
import { reencodeImage } from './branding-logo.js';
import { assertContrast, paletteOf } from './branding-palette.js';
import type { Palette } from './branding-palette.js';

export const FONTS = ['system', 'serif', 'mono'] as const;
export type Font = (typeof FONTS)[number];
export const LINK_KEYS = ['privacy', 'terms', 'support'] as const;
export type LinkKey = (typeof LINK_KEYS)[number];
export type TextOverrides = Partial<Record<Locale, Partial<Record<TextKey, string>>>>;

/** A brand as stored (docs/branding.md, "The document"): plain data, every field checked; images kept apart. */
export interface BrandingDocument {
  displayName?: string;
  colors?: Palette;
  dark?: Palette;
  font?: Font;
  links?: Partial<Record<LinkKey, string>>;
  texts?: TextOverrides;
  defaultLanguage?: Locale;
}

/** A checked document with its re-encoded images (PNG bytes). */
export interface CheckedBranding {
  document: BrandingDocument;
  logo?: Buffer;
  icon?: Buffer;
}

const FIELDS = ['displayName', 'logo', 'icon', 'colors', 'dark', 'font', 'links', 'texts', 'defaultLanguage'];
const MAX_NAME = 100;
const MAX_TEXT = 1000;
const MAX_URL = 2000;

/** Checks a sent document field by field; the first fault is a 400 naming its field. */
export async function checkBranding(body: Record<string, unknown>): Promise<CheckedBranding> {
  for (const key of Object.keys(body)) if (!FIELDS.includes(key)) throw DomainError.invalidField(key, `${key} is not a field of a branding document`);
  const document: BrandingDocument = {};
  const name = optionalString('displayName', body.displayName, MAX_NAME);
  if (name !== undefined) document.displayName = name;
  const colors = paletteOf('colors', body.colors);
  if (colors) {
    assertContrast('colors', colors);
    document.colors = colors;
  }
  const dark = paletteOf('dark', body.dark);
  if (dark) {
    assertContrast('dark', dark);
    document.dark = dark;
  }
  if (body.font !== undefined && body.font !== null) {
    if (!FONTS.includes(body.font as Font)) throw DomainError.invalidField('font', `font must be one of ${FONTS.join(', ')}`);
    document.font = body.font as Font;
  }
  const links = linksOf(body.links);
  if (links) document.links = links;
  const texts = textsOf(body.texts);
  if (texts) document.texts = texts;
  if (body.defaultLanguage !== undefined && body.defaultLanguage !== null) {
    if (!LOCALES.includes(body.defaultLanguage as Locale))
      throw DomainError.invalidField('defaultLanguage', `defaultLanguage must be one of ${LOCALES.join(', ')}`);
    document.defaultLanguage = body.defaultLanguage as Locale;
  }
  return { document, logo: await reencodeImage('logo', body.logo), icon: await reencodeImage('icon', body.icon) };
}

function optionalString(field: string, value: unknown, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw DomainError.invalidField(field, `${field} must be a non-empty string`);
  if (value.length > max) throw DomainError.invalidField(field, `${field} is longer than ${max} characters`);
  return value.trim();
}

/** Links open from the page's footer: https only (never `javascript:` or a data URL), no credentials in them. */
function linksOf(value: unknown): BrandingDocument['links'] {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw DomainError.invalidField('links', 'links must be an object');
  const links: Partial<Record<LinkKey, string>> = {};
  for (const [key, raw] of Object.entries(value)) {
    const field = `links.${key}`;
    if (!LINK_KEYS.includes(key as LinkKey)) throw DomainError.invalidField(field, `${field} is not a link of a brand (${LINK_KEYS.join(', ')})`);
    const text = optionalString(field, raw, MAX_URL);
    if (text === undefined) continue;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw DomainError.invalidField(field, `${field} must be an absolute https URL`);
    }
    if (url.protocol !== 'https:') throw DomainError.invalidField(field, `${field} must be an https URL`);
    if (url.username || url.password) throw DomainError.invalidField(field, `${field} must not carry credentials`);
    links[key as LinkKey] = url.href;
  }
  return links;
}

/**
 * Texts per language and key, each replacing the catalog's (docs/languages.md): only the languages the pages are
 * written in and the keys the catalogs have, each plain text (pages escape it like every text) with no argument the
 * English message does not have, so a page formats it like its own.
 */
function textsOf(value: unknown): TextOverrides | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw DomainError.invalidField('texts', 'texts must be an object of languages');
  const texts: TextOverrides = {};
  for (const [locale, byKey] of Object.entries(value)) {
    if (!LOCALES.includes(locale as Locale))
      throw DomainError.invalidField(`texts.${locale}`, `texts.${locale}: not a language of the pages (${LOCALES.join(', ')})`);
    if (typeof byKey !== 'object' || byKey === null || Array.isArray(byKey))
      throw DomainError.invalidField(`texts.${locale}`, `texts.${locale} must be an object of texts by key`);
    const own: Partial<Record<TextKey, string>> = {};
    for (const [key, text] of Object.entries(byKey)) {
      const field = `texts.${locale}.${key}`;
      if (!Object.hasOwn(en, key)) throw DomainError.invalidField(field, `${field}: no such text key (GET /admin/v1/branding/text-keys lists them)`);
      const checked = optionalString(field, text, MAX_TEXT);
      if (checked === undefined) continue;
      const allowed = argumentsOf(en[key as TextKey]);
      const unknown = [...argumentsOf(checked)].find((name) => !allowed.has(name));
      if (unknown) throw DomainError.invalidField(field, `${field}: {${unknown}} is not an argument of this text (${[...allowed].join(', ') || 'none'})`);
      try {
        new IntlMessageFormat(checked, locale, undefined, { ignoreTag: true });
      } catch {
        throw DomainError.invalidField(field, `${field}: not a message (ICU MessageFormat; write a literal brace as '{')`);
      }
      own[key as TextKey] = checked;
    }
    texts[locale as Locale] = own;
  }
  return texts;
}

/** The `{name}` arguments of an ICU message (the first word after each brace). */
function argumentsOf(message: string): Set<string> {
  return new Set([...message.matchAll(/\{\s*([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));
}
