import type Provider from 'oidc-provider';
import { assertionSubject } from '../../grants/jwt-profile.grant.js';
import { JWT_BEARER_GRANT } from '../../tokens/grant-types.js';

const PARSED_BODY = Symbol('portcullis.parsedBody');

type Form = Record<string, string | string[] | undefined>;

interface ContextWithBody {
  route?: string;
  ctx: { get(header: string): string };
  [PARSED_BODY]?: Form;
}

/**
 * The JWT profile grant needs no client authentication (docs/product-rules.md, "OpenID Connect and OAuth": the signed
 * assertion is the credential), but oidc-provider authenticates a client on every token request. The token endpoint's
 * body is read once, by oidc-provider's own reader (`shared/selective_body.js`), which assigns the parsed form to
 * `ctx.oidc.body` before the client is looked for (`shared/assemble_params.js`, `shared/client_auth.js`): at that
 * assignment a JWT-profile request that names no client and carries no Authorization header gets the assertion's
 * subject (the machine user, whose client id is its user id) as its `client_id`; the grant then verifies the
 * assertion and that its subject is that client. No other request, and no other field, is touched.
 */
export function nameJwtProfileClientOnParse(provider: Provider): void {
  Object.defineProperty(provider.OIDCContext.prototype, 'body', {
    configurable: true,
    get(this: ContextWithBody) {
      return this[PARSED_BODY];
    },
    set(this: ContextWithBody, body: Form) {
      if (this.route === 'token' && body && typeof body === 'object') nameClient(body, this.ctx.get('authorization'));
      this[PARSED_BODY] = body;
    },
  });
}

function nameClient(form: Form, authorization: string): void {
  if (authorization || form.client_id !== undefined || form.client_assertion !== undefined) return;
  if (form.grant_type !== JWT_BEARER_GRANT || typeof form.assertion !== 'string') return;
  const sub = assertionSubject(form.assertion);
  if (sub) form.client_id = sub;
}
