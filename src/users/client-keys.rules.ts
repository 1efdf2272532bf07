import { checkClientJwks } from '../common/crypto/client-jwks.js';
import type { ClientJwks } from '../common/crypto/client-jwks.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { ErrorDetail } from '../common/errors/domain-error.js';
import { assertPublicHost } from '../common/net/configured-target.js';
import { hostOf } from '../common/net/outbound-address.js';
import { checkEndpointUrl } from './rules/endpoint-url.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/** What an application's own keys are about; the rest of the application is not this file's. */
interface OwnKeys {
  authMethod: string;
  jwks: ClientJwks | null;
  jwksUri: string | null;
}

/**
 * An application's own keys (docs/oauth-profiles.md, "Client keys"): `jwks` or `jwks_uri`, never both (RFC 7591 §2),
 * and only for `private_key_jwt`, the one method that verifies the client with public keys (RFC 7523 §2.2). The keys
 * themselves pass checkClientJwks; the URL is https, or plain http to a loopback host (a client on the same machine,
 * which the address check admits only with OUTBOUND_ALLOW_PRIVATE_NETWORKS).
 */
export function checkOwnKeys(app: OwnKeys, problems: ErrorDetail[]): void {
  const given = (['jwks', 'jwksUri'] as const).filter((field) => app[field] !== null);
  if (given.length > 0 && app.authMethod !== 'private_key_jwt') {
    for (const field of given) problems.push({ field, message: 'keys of the application are used by authMethod private_key_jwt only' });
    return;
  }
  if (given.length === 2) return void problems.push({ field: 'jwksUri', message: 'jwks and jwksUri exclude each other (RFC 7591 §2)' });
  if (app.jwks !== null) problems.push(...checkClientJwks(app.jwks, 'jwks').problems);
  if (app.jwksUri !== null) {
    const refusal = 'https is needed (plain http only to a loopback host, with OUTBOUND_ALLOW_PRIVATE_NETWORKS=true)';
    checkEndpointUrl(app.jwksUri, 'jwksUri', { allows: (url) => LOOPBACK.has(hostOf(url)), refusal }, problems);
  }
}

/** The key set as stored: the checked public members only. The caller has run checkOwnKeys. */
export function storedJwks(jwks: ClientJwks | null): ClientJwks | null {
  return jwks === null ? null : (checkClientJwks(jwks, 'jwks').jwks ?? null);
}

/**
 * Where a jwks_uri points, before it is written: never this instance's own origin (its published keys sign its own
 * tokens, never a client's), and a loopback, private or link-local address is a 400 unless
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS (docs/webhooks.md, "Targets on private networks"). Every fetch checks the address
 * again (src/oidc/adapter/remote-client-keys.ts), since a name may resolve elsewhere later.
 */
export async function assertJwksUriTarget(uri: string | null | undefined, rules: { allowPrivateNetworks: boolean; publicUrl: string }): Promise<void> {
  // An absent or malformed URI is not this check's: checkOwnKeys reports it.
  if (!uri || !URL.canParse(uri)) return;
  const url = new URL(uri);
  if (url.origin === new URL(rules.publicUrl).origin) throw DomainError.invalidField('jwksUri', 'jwksUri must not point at this instance itself');
  await assertPublicHost(url, 'jwksUri', rules, 'accept');
}
