import type Provider from 'oidc-provider';

/** The codes oidc-provider's client schema passes to `invalidate` for the two rules relaxed here. */
export const DEV_MODE_RELAXED_CODES = ['implicit-force-https', 'implicit-forbid-localhost'];

/**
 * `Client.Schema#invalidate`, oidc-provider's documented extension point for client metadata rules
 * (lib/helpers/client_schema.js calls it with a code for each redirect URI rule).
 *
 * docs/product-rules.md, "OpenID Connect and OAuth": applications in development mode may register
 * http and loopback redirect URIs, also with the implicit flow, which oidc-provider otherwise refuses
 * for web clients. Every other rule, and every rule for other applications, still invalidates.
 */
export function allowLoopbackForDevMode(provider: Provider): void {
  const schema = provider.Client.Schema.prototype;
  const invalidate = schema.invalidate;
  schema.invalidate = function (this: { portcullis_dev_mode?: boolean }, message: string, code?: string) {
    if (this.portcullis_dev_mode && code !== undefined && DEV_MODE_RELAXED_CODES.includes(code)) return;
    invalidate.call(this, message, code);
  };
}
