// oidc-provider ships no type declarations; this is the narrow surface Portcullis uses.
declare module 'oidc-provider' {
  export interface AdapterPayload {
    [key: string]: any;
    jti?: string;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
  }
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }
  /** Koa context extended with `oidc`; kept loose on purpose. */
  export type OidcContext = any;
  export type Configuration = Record<string, any>;
  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    [member: string]: any;
    static readonly ctx: OidcContext | undefined;
  }
  export default Provider;
  export const interactionPolicy: any;
  export const errors: any;
}

// oidc-provider's own JWT verification, used before its time by the request object checks (provider/request-object.ts).
declare module 'oidc-provider/lib/helpers/jwt.js' {
  export function verify(
    jwt: string,
    keystore: unknown,
    options?: Record<string, unknown>,
  ): Promise<{ payload: Record<string, unknown>; header: Record<string, unknown> }>;
}

// The userinfo action and the helpers its token checks use, for extensions/lazy-token-errors.ts.
declare module 'oidc-provider/lib/actions/userinfo.js' {
  const steps: Array<(ctx: any, next: () => Promise<void>) => Promise<void> | void>;
  export default steps;
}
declare module 'oidc-provider/lib/helpers/certificate_thumbprint.js' {
  export default function certificateThumbprint(cert: unknown): string;
}
declare module 'oidc-provider/lib/helpers/configuration_result.js' {
  export function account(value: unknown, path?: string): any;
}
declare module 'oidc-provider/lib/helpers/validate_dpop.js' {
  export default function validateDpop(provider: unknown, ctx: unknown, accessToken: unknown): Promise<any>;
  export function checkDpopReplay(provider: unknown, ctx: unknown, dPoP: unknown, clientId: string, errorClass?: unknown): Promise<void>;
}
declare module 'oidc-provider/lib/helpers/weak_cache.js' {
  export default function instance(provider: unknown): any;
}
declare module 'oidc-provider/lib/shared/access_token.js' {
  type Step = (ctx: any, next: () => Promise<void>) => Promise<void>;
  export const loadAccessTokenClient: Step;
  export const loadAccessTokenAccount: Step;
  export const loadAccessTokenGrant: Step;
  export function getValidateAccessToken(options?: { afterFind?: (ctx: any, token: any) => unknown }): Step;
}
