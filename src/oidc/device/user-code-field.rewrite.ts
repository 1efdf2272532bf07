import type { BodyRewrite } from '../provider/extensions/request-body-replay.js';
import { OIDC_ROUTES } from '../provider/oidc.routes.js';

/**
 * The user code page's field is `userCode` (docs/oauth-profiles.md, "Device authorization grant"), oidc-provider's
 * `user_code` (lib/actions/code_verification.js): renamed in the posted form before the provider reads it; a
 * `user_code` sent as well wins.
 */
export const renameUserCodeField: BodyRewrite = {
  wants: (req, path) => req.method === 'POST' && path === OIDC_ROUTES.code_verification,
  // The field's name spelt out, or percent-encoded somewhere in the form.
  mayEdit: (body) => body.includes('userCode') || body.includes('%'),
  edit: (form) => {
    if (!form.has('userCode')) return false;
    if (!form.has('user_code')) form.set('user_code', form.get('userCode') ?? '');
    form.delete('userCode');
    return true;
  },
};
