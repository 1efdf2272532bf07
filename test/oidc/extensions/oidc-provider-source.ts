import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Provider from 'oidc-provider';

/**
 * What the contract tests of src/oidc/provider/extensions/ check an extension against: oidc-provider
 * as installed, before Portcullis patches it. An upgrade that renames, moves or stops calling what an
 * extension wraps fails these tests instead of silently dropping a product rule.
 */
const LIB = new URL('.', import.meta.resolve('oidc-provider'));

/** The source of one of oidc-provider's modules, e.g. `shared/client_auth.js`. */
export function librarySource(path: string): string {
  return readFileSync(fileURLToPath(new URL(path, LIB)), 'utf8');
}

/** A provider with none of Portcullis's extensions: its classes are the library's own. */
export function unpatchedProvider(): Provider {
  return new Provider('http://127.0.0.1:1', { features: { devInteractions: { enabled: false } } });
}
