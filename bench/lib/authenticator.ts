/**
 * A software WebAuthn authenticator for the benchmarks: one ES256 credential (node:crypto), attestation
 * format `none`, user present and verified on every use, its signature counter growing by one per
 * assertion (the service refuses a counter that does not grow). Its responses are the JSON that
 * @simplewebauthn/browser hands to the login UI's forms. CBOR and COSE come from
 * @simplewebauthn/server/helpers.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { cose, isoCBOR } from '@simplewebauthn/server/helpers';

/** Flags of authenticator data (WebAuthn §6.1): user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array | string) => Buffer.from(data).toString('base64url');

export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private counter = 0;
  /** base64url of the user handle the relying party gave at registration. */
  private userHandle = '';

  /** `origin`: the relying party's origin (PUBLIC_URL's); `rpId` its host. */
  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** navigator.credentials.create() for the login UI's creation options (`passkey-options-register`). */
  register(options: PublicKeyCredentialCreationOptionsJSON): RegistrationResponseJSON {
    if (options.rp.id !== undefined && options.rp.id !== this.rpId) throw new Error(`creation options for RP ${options.rp.id}, not ${this.rpId}`);
    this.userHandle = options.user.id;
    const jwk = this.publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [cose.COSEKEYS.kty, cose.COSEKTY.EC2],
      [cose.COSEKEYS.alg, cose.COSEALG.ES256],
      [cose.COSEKEYS.crv, cose.COSECRV.P256],
      [cose.COSEKEYS.x, Buffer.from(jwk.x!, 'base64url')],
      [cose.COSEKEYS.y, Buffer.from(jwk.y!, 'base64url')],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      this.authenticatorData(UP | UV | AT, this.counter),
      Buffer.alloc(16), // AAGUID: none given
      idLength,
      this.credentialId,
      isoCBOR.encode(coseKey),
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get() for a challenge of the login UI's request options (`passkey-options-sign-in`). */
  assert(challenge: string): AuthenticationResponseJSON {
    this.counter++;
    const authenticatorData = this.authenticatorData(UP | UV, this.counter);
    const clientDataJSON = this.clientData('webauthn.get', challenge);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(Buffer.from(clientDataJSON, 'base64url'))]), {
      key: this.privateKey,
      dsaEncoding: 'der',
    });
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON,
        authenticatorData: b64url(authenticatorData),
        signature: b64url(signature),
        userHandle: this.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** rpIdHash ‖ flags ‖ signCount (big-endian). */
  private authenticatorData(flags: number, counter: number): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(this.rpId), Buffer.from([flags]), count]);
  }

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string): string {
    return b64url(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }
}
