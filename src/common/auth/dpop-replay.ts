/**
 * The set of DPoP proof `jti` values already used (RFC 9449 §11.1), shared by every process of the instance;
 * the OIDC layer provides it (oidc/provider/dpop.ts), with the token endpoint and userinfo using the same set.
 */
export interface DpopReplays {
  /** Records the proof's use until `usableUntilMs`; false when (clientId, jti) was used before. */
  firstUse(clientId: string, jti: string, usableUntilMs: number): Promise<boolean>;
}

export const DPOP_REPLAYS = Symbol('DPOP_REPLAYS');
