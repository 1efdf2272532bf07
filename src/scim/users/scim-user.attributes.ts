/**
 * The singular string attributes of the SCIM core User (RFC 7643 §4.1.1) that Portcullis keeps as user columns of
 * the same name: what a SCIM document shows (scim-user.mapper.ts), what a PATCH path may name
 * (scim-patch.schema.ts) and what a push clears at a target (src/provisioning/pusher/outbound-user.ts).
 */
export const SINGULAR_USER_ATTRIBUTES = ['displayName', 'nickName', 'profileUrl', 'title', 'userType', 'preferredLanguage', 'locale', 'timezone'] as const;
