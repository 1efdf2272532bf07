import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { JsonFault, JsonFile } from './json-file.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'json-file-'));
});
after(() => rm(dir, { recursive: true, force: true }));

async function withFile<T>(text: string, use: (file: JsonFile) => Promise<T>): Promise<T> {
  const path = join(dir, `${Math.random()}.json`);
  await writeFile(path, text);
  const file = await JsonFile.open(path);
  try {
    return await use(file);
  } finally {
    await file.close();
  }
}

async function members(text: string): Promise<Record<string, unknown>> {
  return withFile(text, async (file) => {
    const out: Record<string, unknown> = {};
    for await (const { key, value } of file.members(file.whole, 'doc')) out[key] = await file.parse(value, key);
    return out;
  });
}

async function elements(text: string): Promise<unknown[]> {
  return withFile(text, async (file) => {
    const out: unknown[] = [];
    for await (const item of file.elements(file.whole, 'doc')) out.push(item);
    return out;
  });
}

describe('JsonFile', () => {
  it('reads an object member by member and an array element by element, as JSON.parse would', async () => {
    const value = { a: 1, 'b"}],': { c: [1, { d: '],}"\\' }], e: null }, f: 'é ✓', g: [], h: {}, i: true };
    assert.deepEqual(await members(` \n${JSON.stringify(value, null, 2)}\n `), value);
    const list = [1, 'two', { three: [3, { x: '[' }] }, [], null, -4.5e3, 'é'];
    assert.deepEqual(await elements(JSON.stringify(list)), list);
    assert.deepEqual(await elements(' [ ] '), []);
    assert.deepEqual(await members('{}'), {});
  });

  it('finds elements across its read chunks, however long', async () => {
    const list = Array.from({ length: 5 }, (_, i) => ({ i, pad: 'x'.repeat(700_000), nested: [{ q: '\\"' }] }));
    const read = await elements(JSON.stringify(list));
    assert.equal(read.length, 5);
    assert.deepEqual(read, list);
  });

  it('finds the end of strings of escapes across its read chunks', async () => {
    const list = [{ a: '\\'.repeat(600_001) }, '"]}', { b: `${'\\"'.repeat(300_000)}]` }, 7];
    assert.deepEqual(await elements(JSON.stringify(list)), list);
  });

  it('gives a member value as a span to read further', async () => {
    await withFile('{"document": {"realm": "x", "users": [{"u": 1}, {"u": 2}]}, "source": "keycloak"}', async (file) => {
      const top = new Map<string, { start: number; end: number }>();
      for await (const { key, value } of file.members(file.whole, '')) top.set(key, value);
      assert.equal(await file.kind(top.get('document')!), 'object');
      assert.equal(await file.parse(top.get('source')!, 'source'), 'keycloak');
      const inner = new Map<string, { start: number; end: number }>();
      for await (const { key, value } of file.members(top.get('document')!, 'document')) inner.set(key, value);
      const users: unknown[] = [];
      for await (const user of file.elements(inner.get('users')!, 'document.users')) users.push(user);
      assert.deepEqual(users, [{ u: 1 }, { u: 2 }]);
    });
  });

  it('names the fault and where it is', async () => {
    const faults: [string, () => Promise<unknown>, RegExp][] = [
      ['unclosed', () => members('{"a": 1'), /doc is not valid JSON: the text ends before an object is closed/],
      ['trailing comma', () => elements('[1, 2,]'), /a value is missing before byte 6/],
      ['two commas', () => elements('[1,,2]'), /a value is missing before byte 3/],
      ['leading comma', () => members('{, "a": 1}'), /a value is missing before byte 1/],
      ['no colon', () => members('{"a" 1}'), /expected ':' after the key at byte 1/],
      ['no value', () => members('{"a": }'), /no value after the key at byte 1/],
      ['a key that is no string', () => members('{1: 2}'), /a key must be a string/],
      ['two values', () => elements('[1 2]'), /doc\[0\] is not valid JSON \(from byte 1\)/],
      ['a bad literal', () => elements('[1, tru]'), /doc\[1\] is not valid JSON/],
      ['text after the value', () => elements('[1] x'), /unexpected text after an array at byte 4/],
      ['a stray bracket', () => members('{"a": 1]'), /unexpected '\]' at byte 7/],
      ['not an array', () => elements('{"a": 1}'), /expected an array at byte 0/],
      ['empty', () => elements(''), /the text ends before an array is closed/],
    ];
    for (const [what, read, message] of faults) {
      await assert.rejects(read, (error: Error) => error instanceof JsonFault && message.test(error.message), what);
    }
  });
});
