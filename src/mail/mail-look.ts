import { DESIGN_CSS } from '../common/design/design-stylesheet.js';

/** The design system's tokens a mail uses (docs/design.md), light and dark, as literal CSS values. */
export interface MailTokens {
  font: string;
  bg: string;
  surface: string;
  text: string;
  muted: string;
  border: string;
  primary: string;
  onPrimary: string;
  link: string;
  /** Sizes in px: mail clients do not all take rem. */
  textMd: number;
  textSm: number;
  textXl: number;
  space: (step: 2 | 3 | 4 | 5 | 6) => number;
  radius: string;
  radiusLg: string;
  cardWidth: number;
}

/**
 * The tokens read from design.css itself, so a mail follows the stylesheet rather than a copy of it: the first
 * `:root` block is the light scheme, the `:root` inside `prefers-color-scheme: dark` the dark one.
 */
function tokensOf(css: string): { light: Map<string, string>; dark: Map<string, string> } {
  const block = (from: number) => {
    const open = css.indexOf('{', css.indexOf(':root', from));
    return declarations(css.slice(open + 1, css.indexOf('}', open)));
  };
  return { light: block(0), dark: block(css.indexOf('prefers-color-scheme: dark')) };
}

function declarations(body: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of body.matchAll(/--pc-([\w-]+)\s*:\s*([^;]+);/g)) found.set(match[1]!, match[2]!.trim());
  return found;
}

const ROOT_PX = 16;
const { light, dark } = tokensOf(DESIGN_CSS);

function token(set: Map<string, string>, name: string): string {
  const value = set.get(name) ?? light.get(name);
  if (value === undefined) throw new Error(`design.css has no --pc-${name}`);
  return value;
}

function px(name: string): number {
  const value = token(light, name);
  return value.endsWith('rem') ? Math.round(Number.parseFloat(value) * ROOT_PX) : Number.parseFloat(value);
}

function colors(set: Map<string, string>) {
  return {
    bg: token(set, 'bg'),
    surface: token(set, 'surface'),
    text: token(set, 'text'),
    muted: token(set, 'text-muted'),
    border: token(set, 'border'),
    primary: token(set, 'primary'),
    onPrimary: token(set, 'on-primary'),
    link: token(set, 'link'),
  };
}

export const MAIL_LIGHT: MailTokens = {
  // Double quotes would end the style attribute the font stack is written into.
  font: token(light, 'font').replace(/"/g, "'"),
  ...colors(light),
  textMd: px('text-md'),
  textSm: px('text-sm'),
  textXl: px('text-xl'),
  space: (step) => px(`space-${step}`),
  radius: token(light, 'radius'),
  radiusLg: token(light, 'radius-lg'),
  cardWidth: px('card-width'),
};

export const MAIL_DARK = colors(dark);

/**
 * The dark scheme, for the clients that honour `prefers-color-scheme` in a mail's `<style>` (Apple Mail, iOS,
 * Outlook for macOS); the others show the inline light scheme, readable on its own.
 */
export const MAIL_DARK_STYLE = [
  `.pc-mail-bg{background:${MAIL_DARK.bg}!important}`,
  `.pc-mail-card{background:${MAIL_DARK.surface}!important;border-color:${MAIL_DARK.border}!important}`,
  `.pc-mail-text{color:${MAIL_DARK.text}!important}`,
  `.pc-mail-muted{color:${MAIL_DARK.muted}!important}`,
  `.pc-mail-button{background:${MAIL_DARK.primary}!important;color:${MAIL_DARK.onPrimary}!important}`,
  `.pc-mail-link{color:${MAIL_DARK.link}!important}`,
].join('');
