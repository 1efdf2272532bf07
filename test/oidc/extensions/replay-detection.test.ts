import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { DpopNonces } from '../../../src/common/auth/dpop-nonce.js';
import { librarySource, unpatchedProvider } from './oidc-provider-source.js';

/**
 * What extensions/replay-detection.ts replaces, and what common/auth/dpop-nonce.ts and oidc/provider/dpop.ts
 * rely on in oidc-provider's DPoP check (helpers/validate_dpop.js). The effect on started services:
 * test/oidc/dpop-cluster.test.ts (one proof raced through two processes) and test/oidc/dpop.test.ts.
 */
describe('contract: ReplayDetection.unique and the DPoP check', () => {
  it('ReplayDetection.unique is a static method, called for DPoP proofs and client assertions', () => {
    assert.equal(typeof (unpatchedProvider().ReplayDetection as unknown as { unique: unknown }).unique, 'function');
    assert.match(librarySource('helpers/validate_dpop.js'), /await provider\.ReplayDetection\.unique\(\s*clientId,\s*dPoP\.jti,/);
    assert.match(librarySource('shared/jwt_client_auth.js'), /ReplayDetection\.unique\(/);
  });

  it('htu is compared with the URL of the request’s origin (pinned to PUBLIC_URL), iat only without a nonce', () => {
    const source = librarySource('helpers/validate_dpop.js');
    assert.match(source, /const expected = new URL\(ctx\.oidc\.urlFor\(ctx\.oidc\.route\)\)\.href;/);
    assert.match(librarySource('helpers/oidc_context.js'), /return new URL\(provider\.pathFor\(name, \{ mountPath, \.\.\.opt \}\), this\.ctx\.href\)\.href;/);
    assert.match(source, /if \(!payload\.nonce\) \{\s*const now = epochTime\(\);\s*const diff = Math\.abs\(now - payload\.iat\);/);
  });

  it('the nonces of DpopNonces and of oidc-provider are the same ones', async () => {
    assert.match(librarySource('provider.js'), /new ServerChallenge\(configuration\.features\.dPoP\.nonceSecret, 'DPoP'\)/);
    const { default: ServerChallenge } = (await import(new URL('helpers/challenge.js', import.meta.resolve('oidc-provider')).href)) as {
      default: new (secret: Buffer, info: string) => { nextChallenge(): string; checkChallenge(value: string): boolean };
    };
    const secret = randomBytes(32);
    const theirs = new ServerChallenge(secret, 'DPoP');
    const ours = new DpopNonces(secret);
    // Each accepts the other's (comparing the two values directly could straddle a minute).
    assert.ok(theirs.checkChallenge(ours.next()));
    assert.ok(ours.accepts(theirs.nextChallenge()));
    assert.ok(!ours.accepts(new DpopNonces(randomBytes(32)).next()), 'another secret’s nonce');
    // Two minutes either side of now, not three (helpers/challenge.js: steps −2 … +2 of 60 s).
    const now = Date.now();
    const at = (minutes: number) => new DpopNonces(secret, () => now + minutes * 60_000);
    assert.ok(at(0).accepts(at(-2).next()));
    assert.ok(!at(0).accepts(at(-4).next()));
    assert.ok(!at(0).accepts(at(2).next()));
  });
});
