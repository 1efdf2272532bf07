import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertSecretResent, checkTargetUrl, settingsOf } from './target-input.js';

const rules = { allowPrivateNetworks: false, port: 8080, publicUrl: 'https://id.example.com' };

async function refusal(url: string, allowPrivateNetworks = false): Promise<string> {
  try {
    await checkTargetUrl(url, 'baseUrl', { ...rules, allowPrivateNetworks });
    return 'accepted';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('provisioning target URLs (docs/provisioning.md, "Targets", "Outbound calls")', () => {
  it('accepts https on a public address; refuses other schemes, credentials, queries, private addresses without the switch, and this instance', async () => {
    assert.equal(await refusal('https://93.184.215.14/scim/v2'), 'accepted');
    assert.match(await refusal('http://93.184.215.14/scim/v2'), /absolute https URL/);
    assert.match(await refusal('ftp://93.184.215.14/scim'), /absolute https URL/);
    assert.match(await refusal('not a url'), /absolute https URL/);
    assert.match(await refusal('https://u:p@93.184.215.14/scim'), /credentials/);
    assert.match(await refusal('https://93.184.215.14/scim?x=1'), /query or fragment/);
    assert.match(await refusal('https://127.0.0.1/scim'), /non-public address.*OUTBOUND_ALLOW_PRIVATE_NETWORKS/);
    assert.match(await refusal('https://[::ffff:7f00:1]/scim'), /non-public address/);
    assert.match(await refusal('https://10.1.2.3/scim'), /non-public address/);
    assert.match(await refusal('https://id.example.com/scim/v2/org'), /this instance itself/);
    // With the switch, private addresses are allowed, but never the instance's own listener.
    assert.equal(await refusal('http://127.0.0.1:9999/scim', true), 'accepted');
    assert.match(await refusal('http://127.0.0.1:8080/scim/v2/x', true), /this instance itself/);
    assert.match(await refusal('http://localhost:8080/scim/v2/x', true), /this instance itself/);
  });
});

describe('provisioning target settings', () => {
  const bearer = { name: 'x', baseUrl: 'https://93.184.215.14/scim', auth: { type: 'bearer' as const, token: 't' } };

  it('defaults: all users, no groups, userName, deactivate, 10 s per request', () => {
    assert.deepEqual(settingsOf(bearer, undefined), {
      settings: {
        auth: { type: 'bearer' },
        scope: { users: 'all', groupIds: [] },
        pushGroups: 'none',
        userName: 'userName',
        onRemove: 'deactivate',
        rolesFrom: null,
        requestTimeoutMs: 10_000,
      },
      secret: 't',
    });
  });

  it('requestTimeoutMs: taken as given, kept by a change that does not name it, the default for settings stored without it', () => {
    const { settings } = settingsOf({ ...bearer, requestTimeoutMs: 120_000 }, undefined);
    assert.equal(settings.requestTimeoutMs, 120_000);
    assert.equal(settingsOf({ name: 'y' }, settings).settings.requestTimeoutMs, 120_000);
    assert.equal(settingsOf({ requestTimeoutMs: 1000 }, settings).settings.requestTimeoutMs, 1000);
    const { requestTimeoutMs: _, ...stored } = settings;
    assert.equal(settingsOf({ name: 'y' }, stored).settings.requestTimeoutMs, 10_000);
  });

  it('pushGroups: none, scoped and all are taken as given', () => {
    for (const pushGroups of ['none', 'scoped', 'all'] as const) assert.equal(settingsOf({ ...bearer, pushGroups }, undefined).settings.pushGroups, pushGroups);
    const { settings } = settingsOf({ ...bearer, pushGroups: 'all' }, undefined);
    assert.equal(settingsOf({ name: 'y' }, settings).settings.pushGroups, 'all', 'a change that does not name it keeps it');
  });

  it('refuses what does not fit together: missing fields and secrets, fields of the other auth type, groups needed but none named', () => {
    const refused = (input: object, before?: ReturnType<typeof settingsOf>['settings']) => assert.throws(() => settingsOf(input, before));
    refused({ name: 'x' });
    refused({ ...bearer, auth: { type: 'bearer' } });
    refused({ ...bearer, auth: { type: 'bearer', token: 't', clientId: 'c' } });
    refused({ ...bearer, auth: { type: 'oauth_client_credentials', tokenUrl: 'https://93.184.215.14/t', clientId: 'c' } });
    refused({ ...bearer, auth: { type: 'oauth_client_credentials', clientId: 'c', clientSecret: 's' } });
    refused({ ...bearer, scope: { users: 'groups' } });
    // A change of an auth of the same type keeps its secret; a new type needs its own.
    const { settings } = settingsOf(bearer, undefined);
    assert.deepEqual(settingsOf({ auth: { type: 'bearer' } }, settings), { settings, secret: undefined });
    refused({ auth: { type: 'oauth_client_credentials', tokenUrl: 'https://93.184.215.14/t', clientId: 'c' } }, settings);
  });
});

describe('a stored secret and where it is sent (docs/provisioning.md)', () => {
  const oauth = { type: 'oauth_client_credentials' as const, tokenUrl: 'https://93.184.215.14/token', clientId: 'c', clientSecret: 's' };
  const bearerTarget = {
    baseUrl: 'https://93.184.215.14/scim',
    settings: settingsOf({ name: 'x', baseUrl: 'https://93.184.215.14/scim', auth: { type: 'bearer', token: 't' } }, undefined).settings,
  };
  const oauthTarget = {
    baseUrl: 'https://93.184.215.14/scim',
    settings: settingsOf({ name: 'x', baseUrl: 'https://93.184.215.14/scim', auth: oauth }, undefined).settings,
  };
  const elsewhere = 'https://198.51.100.7/scim';

  it('the same addresses need no secret; a new one does, unless the secret comes with it', () => {
    assert.doesNotThrow(() => assertSecretResent(bearerTarget, bearerTarget, undefined));
    assert.doesNotThrow(() => assertSecretResent(bearerTarget, { ...bearerTarget, baseUrl: elsewhere }, 'new-token'));
    assert.throws(() => assertSecretResent(bearerTarget, { ...bearerTarget, baseUrl: elsewhere }, undefined), /auth\.token must be sent again/);
  });

  it('with client credentials both the token URL and the base URL count, and the field is auth.clientSecret', () => {
    const movedToken = { ...oauthTarget, settings: { ...oauthTarget.settings, auth: { ...oauth, tokenUrl: 'https://198.51.100.7/token' } } };
    assert.throws(() => assertSecretResent(oauthTarget, movedToken, undefined), /auth\.clientSecret must be sent again/);
    assert.throws(() => assertSecretResent(oauthTarget, { ...oauthTarget, baseUrl: elsewhere }, undefined), /auth\.clientSecret must be sent again/);
    assert.doesNotThrow(() => assertSecretResent(oauthTarget, movedToken, 'new-secret'));
  });
});
