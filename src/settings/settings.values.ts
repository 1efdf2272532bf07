/**
 * The instance's settings (docs/operations.md, "Settings"): token lifetimes, the password policy, the lockout and
 * whether new organizations accept self-registration. Lifetimes in seconds.
 */
export interface TokenLifetimes {
  accessTokenSeconds: number;
  idTokenSeconds: number;
  refreshIdleSeconds: number;
  refreshAbsoluteSeconds: number;
}

export interface PasswordPolicySettings {
  minLength: number;
  maxLength: number;
  requireLower: boolean;
  requireUpper: boolean;
  requireDigit: boolean;
  requireSymbol: boolean;
  historyCount: number;
  maxAgeDays: number;
}

export interface LockoutSettings {
  maxPasswordFailures: number;
  maxFactorFailures: number;
  /** 0: locked until an administrator unlocks. */
  lockSeconds: number;
}

export interface Settings {
  tokens: TokenLifetimes;
  passwordPolicy: PasswordPolicySettings;
  lockout: LockoutSettings;
  registration: { defaultForNewOrganizations: boolean };
}

export type SettingsSection = keyof Settings;
export const SECTIONS: readonly SettingsSection[] = ['tokens', 'passwordPolicy', 'lockout', 'registration'];

export const TOKEN_FIELDS: readonly (keyof TokenLifetimes)[] = ['accessTokenSeconds', 'idTokenSeconds', 'refreshIdleSeconds', 'refreshAbsoluteSeconds'];

/** A token lives at least a minute and at most 90 days, instance-wide and per application. */
export const MIN_TOKEN_SECONDS = 60;
export const MAX_TOKEN_SECONDS = 90 * 86_400;

/**
 * What an instance that never changed a setting has: the lifetimes, minimum length and lockout the service always
 * had; bcrypt reads 72 bytes of a password (src/users/rules/password-policy.ts), hence the maximum length.
 * Self-registration is off for new organizations until an operator turns it on.
 */
export const DEFAULT_SETTINGS: Settings = {
  tokens: { accessTokenSeconds: 12 * 3600, idTokenSeconds: 12 * 3600, refreshIdleSeconds: 30 * 86_400, refreshAbsoluteSeconds: 90 * 86_400 },
  passwordPolicy: {
    minLength: 8,
    maxLength: 72,
    requireLower: false,
    requireUpper: false,
    requireDigit: false,
    requireSymbol: false,
    historyCount: 0,
    maxAgeDays: 0,
  },
  lockout: { maxPasswordFailures: 10, maxFactorFailures: 10, lockSeconds: 0 },
  registration: { defaultForNewOrganizations: false },
};

export function copyOf(settings: Settings): Settings {
  return {
    tokens: { ...settings.tokens },
    passwordPolicy: { ...settings.passwordPolicy },
    lockout: { ...settings.lockout },
    registration: { ...settings.registration },
  };
}
