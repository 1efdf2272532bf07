import { Injectable } from '@nestjs/common';
import type { OnModuleInit } from '@nestjs/common';
import { importJWK } from 'jose';
import { UpstreamOidc } from '../../federation/upstream-oidc.js';
import { SigningKeysService } from './signing-keys.service.js';

/** private_key_jwt to upstream OpenID Providers (RFC 7523 §2.2) signs with this instance's current key; the upstream reads it from our JWKS. */
@Injectable()
export class UpstreamAssertionKey implements OnModuleInit {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly upstream: UpstreamOidc,
  ) {}

  onModuleInit(): void {
    this.upstream.useAssertionKey(async () => {
      const [signer] = (await this.keys.keySet()).jwks;
      return { key: (await importJWK(signer, signer.alg)) as never, kid: signer.kid };
    });
  }
}
