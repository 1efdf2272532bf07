import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { landingLocation, landingProblem } from './idp-initiated-landing.js';

const ORIGINS = ['https://app.contoso.example', 'http://127.0.0.1:8080'];

describe('the landing of an IdP-initiated SAML sign-in', () => {
  it('takes a path of this instance, or a URL on the origin of an application of the organization', () => {
    for (const landing of ['/', '/ui/account', '/ui/account?x=1#y', 'https://app.contoso.example/home', 'http://127.0.0.1:8080/']) {
      assert.equal(landingProblem(landing, ORIGINS), undefined, landing);
    }
    assert.equal(landingLocation('/ui/account', 'https://id.example'), 'https://id.example/ui/account');
    assert.equal(landingLocation('https://app.contoso.example/home', 'https://id.example'), 'https://app.contoso.example/home');
  });

  it('refuses another host however it is written, other schemes, credentials and white space', () => {
    const refused: [string, RegExp][] = [
      ['//evil.example/', /another host/],
      ['/\\evil.example', /backslash/],
      ['https://evil.example/', /not the origin/],
      ['https://app.contoso.example.evil.example/', /not the origin/],
      ['http://app.contoso.example/', /not the origin/],
      ['https://app.contoso.example:444/', /not the origin/],
      ['https://user:pw@app.contoso.example/', /credentials/],
      ['javascript:alert(1)', /http or https/],
      ['data:text/html,x', /http or https/],
      ['home', /path starting with/],
      ['/ui/account\n', /white space/],
      [' /ui/account', /white space/],
    ];
    for (const [landing, problem] of refused) assert.match(landingProblem(landing, ORIGINS) ?? '', problem, JSON.stringify(landing));
  });
});
