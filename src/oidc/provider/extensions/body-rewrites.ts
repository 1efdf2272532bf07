import type { IncomingMessage } from 'node:http';
import { renameUserCodeField } from '../../device/user-code-field.rewrite.js';
import { nameJwtProfileClient, swapJwtForHandle } from '../../tokens/structured-token.rewrite.js';
import type { BodyRewrite } from './request-body-replay.js';

/**
 * Every rewrite of a form body before oidc-provider reads it (docs/decisions/oidc-before-express.md), in the
 * order they run; each names the requests it edits, and none depends on another:
 * 1. introspection and revocation: a JWT `token` becomes a one-request handle (structured-token.rewrite.ts);
 * 2. the token endpoint without an Authorization header: a JWT profile grant names its client (same file);
 * 3. the user code page: its `userCode` field becomes oidc-provider's `user_code` (user-code-field.rewrite.ts).
 */
const BODY_REWRITES: readonly BodyRewrite[] = [swapJwtForHandle, nameJwtProfileClient, renameUserCodeField];

/** The rewrites that want this request, from its method, path and headers; none: its body is left to the provider. */
export function bodyRewritesFor(req: IncomingMessage, path: string): BodyRewrite[] {
  return BODY_REWRITES.filter((rewrite) => rewrite.wants(req, path));
}
