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
  type NodeRequest = import('node:http').IncomingMessage;
  type NodeResponse = import('node:http').ServerResponse;
  /** A Koa middleware of the provider's own app (`provider.use`) or a grant's handler (`registerGrantType`). */
  export type ProviderMiddleware = (ctx: OidcContext, next: () => Promise<void>) => Promise<void> | void;

  /**
   * An instance of one of the provider's models (lib/models: a token, a code, a grant, a client, a session): the
   * members Portcullis reads by name, the rest of its payload as stored, read where it is needed.
   */
  export interface ProviderModel {
    jti: string;
    kind: string;
    clientId: string;
    accountId?: string;
    grantId?: string;
    scope?: string;
    exp?: number;
    /** Seconds until it expires. */
    readonly expiration: number;
    readonly isValid: boolean;
    save(): Promise<string>;
    destroy(): Promise<void>;
    [member: string]: unknown;
  }
  /** A grant (lib/models/grant.js): the scopes and claims a person gave a client. */
  export interface ProviderGrant extends ProviderModel {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
  }
  /** A client (lib/models/client.js), built from its registration metadata. */
  export interface ProviderClient {
    clientId: string;
    clientName?: string;
    responseTypeAllowed(type: string): boolean;
    grantTypeAllowed(type: string): boolean;
    includeSid(): boolean;
    compareClientSecret(actual: string): boolean | Promise<boolean>;
    backchannelLogout(sub: string, sid: string): Promise<void>;
    [metadata: string]: unknown;
  }
  /** An ID token being issued (lib/models/id_token.js). */
  export interface ProviderIdToken {
    scope?: string;
    set(claim: string, value: unknown): void;
    issue(options: { use: 'idtoken' | 'logout' | 'userinfo' | 'introspection' | 'authorization'; expiresAt?: number }): Promise<string>;
  }
  /** What `interactionDetails` finds of a pending interaction (lib/models/interaction.js). */
  export interface ProviderInteraction {
    uid: string;
    returnTo: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, string | undefined>;
    session?: { accountId?: string; amr?: string[]; acr?: string };
    grantId?: string;
    /** Of a device flow's sign-in (RFC 8628): the device code being approved. */
    deviceCode?: string;
    result?: Record<string, unknown>;
    lastSubmission?: Record<string, unknown>;
    persist(): Promise<unknown>;
  }
  /**
   * A model class. Its look-ups are replaced by extensions (src/oidc/provider/extensions/) with functions that pass
   * their arguments on as they came, so they are declared as the library calls them: an id, then options.
   */
  export interface ProviderModelClass<T> {
    new (payload?: Record<string, unknown>, options?: Record<string, unknown>): T;
    readonly prototype: T;
    readonly adapter: Adapter;
    find(id: unknown, ...options: unknown[]): Promise<T | undefined>;
    revokeByGrantId(grantId: string): Promise<void>;
  }
  export interface ProviderClientClass {
    readonly prototype: ProviderClient;
    /** Its metadata validation (`Client.Schema#invalidate`). */
    readonly Schema: { readonly prototype: { invalidate(message: string, code?: string): void } };
    find(id: unknown, ...options: unknown[]): Promise<ProviderClient | undefined>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    static readonly ctx: OidcContext | undefined;
    /** Trust X-Forwarded-* (Koa's `app.proxy`). */
    proxy: boolean;
    readonly Client: ProviderClientClass;
    readonly Grant: ProviderModelClass<ProviderGrant>;
    readonly AccessToken: ProviderModelClass<ProviderModel>;
    readonly ClientCredentials: ProviderModelClass<ProviderModel>;
    readonly RefreshToken: ProviderModelClass<ProviderModel>;
    readonly AuthorizationCode: ProviderModelClass<ProviderModel>;
    readonly DeviceCode: ProviderModelClass<ProviderModel> & {
      findByUserCode(userCode: string, options?: { ignoreExpiration?: boolean }): Promise<ProviderModel | undefined>;
    };
    readonly IdToken: {
      new (claims: Record<string, unknown>, options: { ctx: OidcContext; client?: ProviderClient }): ProviderIdToken;
      readonly prototype: ProviderIdToken;
    };
    readonly ResourceServer: new (
      identifier: string,
      info: Record<string, unknown>,
    ) => object;
    readonly ReplayDetection: object;
    readonly Session: { get(ctx: OidcContext): Promise<unknown> };
    readonly OIDCContext: { readonly prototype: object };
    use(middleware: ProviderMiddleware): void;
    on(event: string, listener: (...args: never[]) => void): this;
    callback(): (req: NodeRequest, res: NodeResponse) => void;
    createContext(req: NodeRequest, res: NodeResponse): OidcContext;
    interactionDetails(req: NodeRequest, res: NodeResponse): Promise<ProviderInteraction>;
    interactionFinished(req: NodeRequest, res: NodeResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    registerGrantType(
      name: string,
      handler: ProviderMiddleware,
      parameters?: string | string[] | Set<string>,
      allowedDuplicateParameters?: string | string[] | Set<string>,
    ): void;
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
