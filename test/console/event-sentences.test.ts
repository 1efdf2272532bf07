import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { build } from 'esbuild';
import { EVENT_MESSAGES } from '../../src/common/events/event-types.js';

/** What the test reads from the console's own sources, bundled as the console's build bundles them. */
interface ConsoleSentences {
  LANGUAGES: { code: string; name: string }[];
  EVENT_SENTENCES: Record<string, Record<string, string>>;
  SENTENCE_PLACEHOLDERS: readonly string[];
}

const placeholdersOf = (sentence: string) => [...sentence.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

/**
 * Every event type the service writes reads as a sentence on the console's events page (docs/console.md, "What it
 * shows"), in every language the console offers: a type added to the server without its sentences fails here.
 */
describe('the events page has a sentence for every event type in every console language', () => {
  let console_: ConsoleSentences;
  before(async () => {
    const root = new URL('../../../console/src/', import.meta.url).pathname;
    const bundled = await build({
      stdin: {
        contents: "export { LANGUAGES } from './i18n'; export { EVENT_SENTENCES, SENTENCE_PLACEHOLDERS } from './event-sentences';",
        resolveDir: root,
        loader: 'ts',
      },
      bundle: true,
      format: 'esm',
      platform: 'neutral',
      write: false,
      logLevel: 'silent',
    });
    // i18n.ts chooses a language as it loads, from what a browser has.
    Object.assign(globalThis, { localStorage: { getItem: () => null, setItem: () => undefined }, document: { documentElement: {} } });
    if (!('navigator' in globalThis)) Object.defineProperty(globalThis, 'navigator', { value: { language: 'en' }, configurable: true });
    const code = bundled.outputFiles[0]!.text;
    console_ = (await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)) as ConsoleSentences;
  });

  it('offers sentences in exactly the languages of the console', () => {
    assert.deepEqual(Object.keys(console_.EVENT_SENTENCES).sort(), console_.LANGUAGES.map((l) => l.code).sort());
  });

  it('has a sentence for every event type, and none for a type the service does not write', () => {
    const types = Object.keys(EVENT_MESSAGES).sort();
    for (const [language, sentences] of Object.entries(console_.EVENT_SENTENCES)) {
      const missing = types.filter((type) => !sentences[type]?.trim());
      assert.deepEqual(missing, [], `${language}: event types without a sentence`);
      assert.deepEqual(Object.keys(sentences).sort(), types, `${language}: sentences of unknown event types`);
    }
  });

  it('names only what the timeline can fill in, and the same things in every language', () => {
    const known = new Set(console_.SENTENCE_PLACEHOLDERS);
    const english = console_.EVENT_SENTENCES.en!;
    for (const [language, sentences] of Object.entries(console_.EVENT_SENTENCES)) {
      for (const [type, sentence] of Object.entries(sentences)) {
        for (const name of placeholdersOf(sentence)) assert.ok(known.has(name), `${language} ${type}: unknown placeholder {${name}}`);
        assert.deepEqual(placeholdersOf(sentence), placeholdersOf(english[type]!), `${language} ${type}: names what the English sentence names`);
      }
    }
  });
});
