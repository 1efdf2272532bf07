/**
 * How a sign-in authenticated the user (docs/product-rules.md, "Multi-factor sign-in"): RFC 8176
 * `amr` values and this instance's two `acr` values.
 */
export const ACR_PASSWORD = 'urn:portcullis:acr:pwd';
export const ACR_MFA = 'urn:portcullis:acr:mfa';
export const ACR_VALUES = [ACR_PASSWORD, ACR_MFA];

/**
 * Something the user knows or has, or a sign-in at the organization's identity provider (`fed`, one factor);
 * `mfa` is added when two of them, or a user-verified passkey, were used.
 */
const FACTOR_METHODS = new Set(['pwd', 'otp', 'hwk', 'swk', 'fed']);

/**
 * A passkey: `swk` when it may be synced to other devices (a software key), else `hwk` (a hardware
 * key); `user` for the presence test every assertion carries, and `mfa` when the authenticator verified
 * the user (PIN or biometrics: something the user knows or is, on something the user has).
 */
export function passkeyMethods(multiDevice: boolean, userVerified: boolean): string[] {
  return [multiDevice ? 'swk' : 'hwk', 'user', ...(userVerified ? ['mfa'] : [])];
}

export function isPasskeyMethod(method: string): boolean {
  return method === 'hwk' || method === 'swk';
}

/**
 * The methods of a sign-in made of several steps, and its `acr`. A trusted upstream's own methods
 * (docs/federation.md, "Who the upstream identity is")
 * are reported after them and count for nothing here: its `mfa` arrives as a step of its own.
 */
export function reportedAuthentication(steps: string[][], upstream: string[] = []): { amr: string[]; acr: string } {
  const { amr, acr } = authenticationOf(...steps);
  return { amr: [...new Set([...amr, ...upstream])], acr };
}

/** The methods of a sign-in made of several steps, and its `acr`. */
export function authenticationOf(...steps: string[][]): { amr: string[]; acr: string } {
  const methods = [...new Set(steps.flat())];
  const factors = methods.filter((m) => FACTOR_METHODS.has(m));
  const multiFactor = methods.includes('mfa') || factors.length >= 2;
  const amr = multiFactor && !methods.includes('mfa') ? [...methods, 'mfa'] : methods;
  return { amr, acr: multiFactor ? ACR_MFA : ACR_PASSWORD };
}

/**
 * The steps a live session's `amr` stands for when it is asked again (step-up): a federated one is `fed`, with
 * `mfa` when the sign-in was multi-factor; the upstream's own methods in it were reported, never counted.
 */
export function sessionSteps(amr: string[]): string[] {
  if (!amr.includes('fed')) return amr;
  return amr.includes('mfa') ? ['fed', 'mfa'] : ['fed'];
}
