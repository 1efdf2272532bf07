/**
 * What a provisioning target is (docs/provisioning.md, "Targets"): where it is, how the service authenticates to
 * it, and what it is sent. The settings are kept as JSON beside the target's row; the secret (bearer token or OAuth
 * client secret) apart from them, encrypted.
 */

export const AUTH_TYPES = ['bearer', 'oauth_client_credentials'] as const;
export type AuthType = (typeof AUTH_TYPES)[number];

export const USER_SCOPES = ['all', 'groups'] as const;
export type UserScope = (typeof USER_SCOPES)[number];

export const PUSH_GROUPS = ['none', 'scoped', 'all'] as const;
export type PushGroups = (typeof PUSH_GROUPS)[number];

/** Which Portcullis name becomes the remote `userName`. */
export const USER_NAME_SOURCES = ['loginName', 'userName', 'email'] as const;
export type UserNameSource = (typeof USER_NAME_SOURCES)[number];

export const ON_REMOVE = ['delete', 'deactivate'] as const;
export type OnRemove = (typeof ON_REMOVE)[number];

export const OBJECT_STATUSES = ['provisioned', 'pending', 'failing', 'conflict'] as const;
export type ObjectStatus = (typeof OBJECT_STATUSES)[number];

export const TARGET_STATES = ['active', 'paused', 'auth_failed', 'disabled'] as const;
export type TargetState = (typeof TARGET_STATES)[number];

/**
 * How long one request to the target may take, in ms (docs/provisioning.md, "Outbound calls"): 10 s unless the
 * target's owner allows a slow target more, at most two minutes (the pusher's lease outlasts it, so a crashed
 * process's target waits that much longer before another process takes it over).
 */
export const REQUEST_TIMEOUT_MS = { min: 1000, max: 120_000, default: 10_000 } as const;

/** Length bounds of the API's fields (checked before the database, docs/product-rules.md, "API"). */
export const PROVISIONING_BOUNDS = {
  name: 200,
  url: 2048,
  token: 2048,
  clientId: 255,
  clientSecret: 1024,
  scope: 1000,
  groupId: 64,
  groupIds: 100,
} as const;

/** The public half of a target's authentication: what reads show. */
export type AuthSettings = { type: 'bearer' } | { type: 'oauth_client_credentials'; tokenUrl: string; clientId: string; scope?: string };

export interface TargetSettings {
  auth: AuthSettings;
  scope: { users: UserScope; groupIds: string[] };
  pushGroups: PushGroups;
  userName: UserNameSource;
  onRemove: OnRemove;
  /** The project whose roles pushed users carry (RFC 7643 §4.1.2 `roles`); none when absent or null. */
  rolesFrom?: string | null;
  /** How long one request may take (REQUEST_TIMEOUT_MS); targets stored before the setting existed have none: the default. */
  requestTimeoutMs?: number;
}

/** The request timeout of a target's settings. */
export function requestTimeoutOf(settings: Pick<TargetSettings, 'requestTimeoutMs'>): number {
  return settings.requestTimeoutMs ?? REQUEST_TIMEOUT_MS.default;
}
