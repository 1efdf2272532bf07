import { generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse } from '@simplewebauthn/server';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';

/** This instance as a WebAuthn relying party: its public URL's host and origin. */
export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

export function relyingPartyOf(publicUrl: string, name: string): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname, name, origin: url.origin };
}

/** A stored passkey as the ceremonies need it. */
export interface StoredPasskey {
  credentialId: string;
  publicKey: string;
  signCount: number;
  transports: AuthenticatorTransportFuture[];
}

/** Checks a challenge the browser signed: issued by this instance for this ceremony (see the login UI). */
export type ChallengeCheck = (challenge: string) => boolean;

export interface NewPasskey extends StoredPasskey {
  multiDevice: boolean;
  userVerified: boolean;
  /** The authenticator's model id (all zeros when the browser withholds it); names the factor. */
  aaguid?: string;
}

/**
 * Creation options: a discoverable credential (resident key required, so it can sign in alone),
 * user verification preferred, no attestation (nothing here trusts or stores an attestation chain);
 * the user's existing passkeys are excluded so one authenticator is not registered twice.
 */
export function registrationOptions(
  rp: RelyingParty,
  user: { id: string; loginName: string; displayName: string },
  challenge: Uint8Array<ArrayBuffer>,
  existing: StoredPasskey[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.loginName,
    userDisplayName: user.displayName,
    userID: new TextEncoder().encode(user.id),
    challenge,
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
  });
}

/** Request options; with no credentials listed the browser offers every passkey of this relying party. */
export function authenticationOptions(
  rp: RelyingParty,
  challenge: Uint8Array<ArrayBuffer>,
  allowed: StoredPasskey[] = [],
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({
    rpID: rp.id,
    challenge,
    userVerification: 'preferred',
    allowCredentials: allowed.map((p) => ({ id: p.credentialId, transports: p.transports })),
  });
}

/** The new credential, when the attestation response is valid for this relying party and challenge; @simplewebauthn/server parses it. */
export async function verifyRegistration(rp: RelyingParty, response: RegistrationResponseJSON, challenge: ChallengeCheck): Promise<NewPasskey | undefined> {
  const result = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!result?.verified) return undefined;
  const { credential, credentialDeviceType, userVerified, aaguid } = result.registrationInfo;
  return {
    credentialId: credential.id,
    publicKey: Buffer.from(credential.publicKey).toString('base64url'),
    signCount: credential.counter,
    transports: credential.transports ?? [],
    multiDevice: credentialDeviceType === 'multiDevice',
    userVerified,
    aaguid,
  };
}

/** The assertion's result for the stored passkey it names, or undefined when any check fails. */
export async function verifyAssertion(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  passkey: StoredPasskey,
  challenge: ChallengeCheck,
): Promise<{ newSignCount: number; userVerified: boolean } | undefined> {
  const result = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: {
      id: passkey.credentialId,
      publicKey: Buffer.from(passkey.publicKey, 'base64url'),
      counter: passkey.signCount,
      transports: passkey.transports,
    },
    requireUserVerification: false,
  }).catch(() => undefined);
  if (!result?.verified) return undefined;
  return { newSignCount: result.authenticationInfo.newCounter, userVerified: result.authenticationInfo.userVerified };
}
