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
