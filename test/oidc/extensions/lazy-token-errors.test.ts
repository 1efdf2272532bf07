import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { errors } from 'oidc-provider';
import userinfo from 'oidc-provider/lib/actions/userinfo.js';
import { useService } from '../../support/fixtures.js';
import { createMachine, createProject, postForm } from '../support/oidc-fixtures.js';
import { librarySource } from './oidc-provider-source.js';

/**
 * What extensions/lazy-token-errors.ts replaces: userinfo's token, client and account steps, copied there with
 * their errors built only when thrown. The sources are pinned: an upgrade that changes either file fails here, and
 * the copies are then compared with the new code (and the hashes updated) before the patch is kept.
 */
describe('contract: the userinfo steps that build InvalidToken eagerly', () => {
  it('are the pinned sources', () => {
    assert.equal(sha256(librarySource('shared/access_token.js')), '396a191edaf6609d686a8f2a63b31069d5068167ee13b8b9c0b8549040c9e5c1');
    assert.equal(sha256(librarySource('actions/userinfo.js')), '99aa2b34d891c95c47fdeb9e17b2f29d25a6f2e49b82a78aec3d0e96cd5741e9');
  });
});

describe('userinfo builds an InvalidToken only to refuse a token', () => {
  const svc = useService();

  // The swap happens when the service builds its provider, so only once it has started.
  it('has the steps swapped in the userinfo action list', () => {
    const names = (userinfo as Array<{ name: string }>).map((s) => s.name);
    for (const swapped of ['validateUserinfoAccessToken', 'loadClientOfAccessToken', 'loadAccountOfAccessToken'])
      assert.ok(names.includes(swapped), names.join(', '));
    for (const original of ['validateAccessToken', 'loadAccessTokenClient', 'loadAccessTokenAccount']) assert.ok(!names.includes(original), names.join(', '));
  });

  it('builds none for a valid token, and still refuses an unknown one and one without openid', async () => {
    const project = await createProject(svc);
    const machine = await createMachine(svc, project.orgId);
    const basic = { id: machine.clientId, secret: machine.clientSecret };
    const token = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials', scope: 'openid' }, basic);
    assert.equal(token.status, 200, token.text);

    const built = await countInvalidTokens(async () => {
      const res = await userinfoWith(token.body.access_token);
      assert.equal(res.status, 200, res.text);
      assert.equal(JSON.parse(res.text).sub, machine.userId);
    });
    assert.equal(built, 0);

    const unknown = await userinfoWith('not-a-token');
    assert.equal(unknown.status, 401, unknown.text);
    assert.match(unknown.wwwAuthenticate, /error="invalid_token"/);

    const noOpenid = await postForm(svc, '/oauth/v2/token', { grant_type: 'client_credentials' }, basic);
    assert.equal(noOpenid.status, 200, noOpenid.text);
    const refused = await userinfoWith(noOpenid.body.access_token);
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.wwwAuthenticate, /error="insufficient_scope"/);
  });

  async function userinfoWith(accessToken: string) {
    const res = await fetch(new URL('/oidc/v1/userinfo', svc.url), { headers: { authorization: `Bearer ${accessToken}` } });
    return { status: res.status, text: await res.text(), wwwAuthenticate: res.headers.get('www-authenticate') ?? '' };
  }
});

/** InvalidToken's constructor captures its stack trace itself: counting those calls counts the errors built. */
async function countInvalidTokens(during: () => Promise<void>): Promise<number> {
  const capture = Error.captureStackTrace;
  let count = 0;
  Error.captureStackTrace = function counting(target: object, ctor?: Function) {
    if (target instanceof errors.InvalidToken) count++;
    return capture.call(Error, target, ctor);
  };
  try {
    await during();
  } finally {
    Error.captureStackTrace = capture;
  }
  return count;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
