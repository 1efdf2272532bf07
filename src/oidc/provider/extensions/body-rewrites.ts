import type { IncomingMessage } from 'node:http';
import { renameUserCodeField } from '../../device/user-code-field.rewrite.js';
import { swapJwtForHandle } from '../../tokens/structured-token.rewrite.js';
import type { BodyRewrite } from './request-body-replay.js';

/**
 * Every rewrite of a form body before oidc-provider reads it (docs/decisions/oidc-before-express.md), in the
 * order they run; each names the requests it edits, and none depends on another:
 * 1. introspection and revocation: a JWT `token` becomes a one-request handle (structured-token.rewrite.ts);
 * 2. the user code page: its `userCode` field becomes oidc-provider's `user_code` (user-code-field.rewrite.ts).
 * The token endpoint's body is not read here: a JWT profile grant names its client as oidc-provider parses the body
 * (jwt-profile-client.ts), so a token request is read once, by the provider.
 */
const BODY_REWRITES: readonly BodyRewrite[] = [swapJwtForHandle, renameUserCodeField];

/** The rewrites that want this request, from its method, path and headers; none: its body is left to the provider. */
export function bodyRewritesFor(req: IncomingMessage, path: string): BodyRewrite[] {
  return BODY_REWRITES.filter((rewrite) => rewrite.wants(req, path));
}
