/**
 * Every event type the service writes (docs/product-rules.md, "Domain"), with its English message, shown by event search
 * under the key `EventTypes.<type>`. A type missing here cannot be written (see EventStore).
 */
export const EVENT_MESSAGES = {
  'org.added': 'Organization added',
  'project.added': 'Project added',
  'project.application.added': 'Application added',
  'project.application.key.added': 'Application key added',
  'user.human.added': 'Person added',
  'user.machine.added': 'Service user added',
  'user.machine.changed': 'Service user changed',
  'user.human.profile.changed': 'Profile changed',
  'user.human.email.changed': 'Email address changed',
  'user.human.phone.changed': 'Phone number changed',
  'user.human.password.changed': 'Password changed',
  'user.human.password.check.succeeded': 'Password check succeeded',
  'user.human.password.check.failed': 'Password check failed',
  'user.human.mfa.added': 'Second factor added',
  'user.human.mfa.removed': 'Second factor removed',
  'user.human.mfa.check.succeeded': 'Second factor check succeeded',
  'user.human.mfa.check.failed': 'Second factor check failed',
  'user.deactivated': 'User deactivated',
  'user.reactivated': 'User reactivated',
  'user.locked': 'User locked',
  'user.unlocked': 'User unlocked',
  'user.removed': 'User removed',
  'user.machine.secret.set': 'Client secret generated',
  'user.machine.key.added': 'Key added',
  'user.personal.token.added': 'Personal access token added',
  'user.machine.secret.removed': 'Client secret removed',
  'user.machine.key.removed': 'Key removed',
  'user.personal.token.removed': 'Personal access token removed',
  'user.token.revoked': 'Token revoked',
  'user.impersonated': 'User impersonated',
  'instance.member.added': 'Instance member added',
  'org.member.added': 'Organization member added',
  'org.login.policy.changed': 'Login policy changed',
  'instance.feature.set': 'Feature set',
  'key.rotated': 'Signing key rotated',
  'session.terminated': 'Session terminated',
  'group.added': 'Group added',
  'group.changed': 'Group changed',
  'group.removed': 'Group removed',
  'group.member.added': 'Group member added',
  'group.member.removed': 'Group member removed',
  'webhook.added': 'Webhook subscription added',
  'webhook.removed': 'Webhook subscription removed',
} as const;

export type EventType = keyof typeof EVENT_MESSAGES;

export const AGGREGATE_MESSAGES = {
  instance: 'Instance',
  org: 'Organization',
  project: 'Project',
  user: 'User',
  key: 'Signing key',
  session: 'Session',
  group: 'Group',
  webhook: 'Webhook subscription',
} as const;

export type AggregateType = keyof typeof AGGREGATE_MESSAGES;
