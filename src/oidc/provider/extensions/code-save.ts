import type Provider from 'oidc-provider';

/** A code as the check sees it when oidc-provider saves it. */
export interface SavedCode {
  clientId: string;
  resource?: unknown;
  accountId?: string;
  error?: string;
}

/** Looks at an issued code and its client before it is stored; throws an OAuth error to refuse it. */
export type IssuedCodeCheck = (client: unknown, code: SavedCode) => Promise<void>;

/**
 * Runs `check` when oidc-provider saves an issued code, before the client hears of it: an authorization code at once,
 * a device code once a person approved it (RFC 8628 §3.3: its account is written to it) and not when it was denied.
 * It wraps `AuthorizationCode#save` and `DeviceCode#save` (docs/decisions/oidc-provider-extensions.md): the library
 * has no hook between a code's issue and its storage. Used to bind an openly registered agent to the organization of
 * its first code's resource (src/agents/registration/dynamic-registration.ts, bindAtFirstCode).
 */
export function checkCodesAtSave(provider: Provider, check: IssuedCodeCheck): void {
  wrapSave(provider, provider.AuthorizationCode.prototype, check, () => true);
  wrapSave(provider, provider.DeviceCode.prototype, check, (code) => Boolean(code.accountId) && !code.error);
}

function wrapSave(provider: Provider, model: object, check: IssuedCodeCheck, issued: (code: SavedCode) => boolean): void {
  const code = model as { save: (...args: unknown[]) => Promise<string> };
  const save = code.save;
  code.save = async function (this: SavedCode, ...args: unknown[]) {
    if (issued(this)) await check(await provider.Client.find(this.clientId), this);
    return save.apply(this, args);
  };
}
