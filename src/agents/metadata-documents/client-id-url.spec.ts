import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clientIdUrlProblem } from './client-id-url.js';

describe('client id URLs (draft-ietf-oauth-client-id-metadata-document-03)', () => {
  it('accepts an https URL with a path, a port or a query', () => {
    for (const id of ['https://app.example/client.json', 'https://app.example:8443/oauth/client', 'https://app.example/c?v=1'])
      assert.equal(clientIdUrlProblem(id), undefined, id);
  });

  it('refuses no path, a fragment, user information, dot segments, http and characters URL parsing would rewrite', () => {
    const refused: [string, RegExp][] = [
      ['https://app.example', /no path/],
      ['https://app.example/', /no path/],
      ['https://app.example?x=1', /no path/],
      ['https://app.example/c.json#x', /fragment/],
      ['https://user@app.example/c.json', /user information/],
      ['https://app.example/a/../c.json', /dot segment/],
      ['https://app.example/a/%2E/c.json', /dot segment/],
      ['http://app.example/c.json', /not an https URL/],
      ['https://app.example/c json', /space/],
      ['https://app.example\\c.json', /backslash/],
    ];
    for (const [id, problem] of refused) assert.match(clientIdUrlProblem(id) ?? '', problem, id);
  });
});
