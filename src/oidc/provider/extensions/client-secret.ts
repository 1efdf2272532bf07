import { hash, timingSafeEqual } from 'node:crypto';
import Provider from 'oidc-provider';
import type { SecretHasher } from '../../../common/crypto/secret-hasher.js';

interface SecretClient {
  clientSecret?: string;
  portcullis_kind?: string;
  tokenEndpointAuthMethod: string;
  introspectionEndpointAuthMethod?: string;
  revocationEndpointAuthMethod?: string;
}

/**
 * `Client#compareClientSecret`, called at one place: oidc-provider's client authentication
 * (lib/shared/client_auth.js) for client_secret_basic and client_secret_post.
 *
 * Client secrets are stored as keyed hashes (docs/product-rules.md, "OpenID Connect and OAuth"): the
 * presented secret's hash is compared. oidc-provider treats client_secret_basic and _post as one;
 * Portcullis holds each client to its registered method (machine users excepted: the product rules
 * allow both for client_credentials). A client sends the same secret on every request: a Client (one
 * per registration and stored hash) remembers the SHA-256 of the secret it last accepted, so a repeat
 * costs a plain hash, not an HMAC.
 */
export function compareHashedClientSecrets(provider: Provider, hasher: SecretHasher): void {
  const accepted = new WeakMap<SecretClient, Buffer>();
  provider.Client.prototype.compareClientSecret = function compare(this: SecretClient, actual: string) {
    if (typeof this.clientSecret !== 'string') return false;
    if (this.portcullis_kind !== 'machine' && presentedSecretMethod() !== registeredMethod(this)) return false;
    const digest = hash('sha256', actual, 'buffer');
    const known = accepted.get(this);
    if (known && timingSafeEqual(known, digest)) return true;
    if (!hasher.matches(actual, this.clientSecret)) return false;
    accepted.set(this, digest);
    return true;
  };
}

function presentedSecretMethod(): string {
  return Provider.ctx?.headers?.authorization ? 'client_secret_basic' : 'client_secret_post';
}

function registeredMethod(client: SecretClient): string {
  const route = Provider.ctx?.oidc?.route;
  if (route === 'introspection') return client.introspectionEndpointAuthMethod ?? client.tokenEndpointAuthMethod;
  if (route === 'revocation') return client.revocationEndpointAuthMethod ?? client.tokenEndpointAuthMethod;
  return client.tokenEndpointAuthMethod;
}
