import type { LoggedEvent } from '../../common/events/event-log.js';
import {
  CAEP_ASSURANCE_LEVEL_CHANGE,
  CAEP_CREDENTIAL_CHANGE,
  CAEP_SESSION_REVOKED,
  RISC_ACCOUNT_DISABLED,
  RISC_ACCOUNT_ENABLED,
  RISC_ACCOUNT_PURGED,
  RISC_IDENTIFIER_CHANGED,
} from '../event-uris.js';

/** One event of a SET: its type URI and its members (CAEP 1.0 §3, RISC 1.0 §2). */
export interface SignalEvent {
  uri: string;
  /** Distinguishes the SETs made of one logged event, so each has a `jti` of its own, the same on every retry. */
  key: string;
  members: Record<string, unknown>;
}

/** Who an event is about, and what SETs it makes; nothing for events no receiver needs. */
export interface Signals {
  userId: string;
  events: SignalEvent[];
  /**
   * For a person removed: the projects whose grants admitted them just before (the grants went with them), so an
   * application with `access: "granted"` is told only of a person it admitted.
   */
  grantedProjects?: string[];
}

/**
 * The Portcullis events that become SETs (docs/signals.md, "What is transmitted"): a session ended, a user
 * deactivated, locked or reactivated, a password or a second factor changed, an e-mail address changed. Their
 * `event_timestamp` (CAEP 1.0 §2) is the second the event was logged.
 */
export function signalsOf(event: LoggedEvent, at: number): Signals | undefined {
  const payload = event.payload ?? {};
  const timestamp = { event_timestamp: Math.floor(at / 1000) };
  const userEvent = event.aggregateType === 'user' ? event.aggregateId : undefined;
  const one = (uri: string, members: Record<string, unknown> = {}) => ({ uri, key: uri, members: { ...timestamp, ...members } });
  switch (event.type) {
    case 'session.terminated': {
      const userId = event.aggregateType === 'user' ? event.aggregateId : typeof payload.userId === 'string' ? payload.userId : undefined;
      const initiator = payload.reason === 'administrator' ? 'admin' : 'user';
      return userId ? { userId, events: [one(CAEP_SESSION_REVOKED, { initiating_entity: initiator })] } : undefined;
    }
    case 'user.deactivated':
      return userEvent ? { userId: userEvent, events: [one(CAEP_SESSION_REVOKED, { initiating_entity: 'admin' }), one(RISC_ACCOUNT_DISABLED)] } : undefined;
    case 'user.locked':
      return userEvent ? { userId: userEvent, events: [one(CAEP_SESSION_REVOKED, { initiating_entity: 'policy' })] } : undefined;
    case 'user.reactivated':
      return userEvent ? { userId: userEvent, events: [one(RISC_ACCOUNT_ENABLED)] } : undefined;
    case 'user.human.password.changed':
      return userEvent ? { userId: userEvent, events: [one(CAEP_CREDENTIAL_CHANGE, { credential_type: 'password', change_type: 'update' })] } : undefined;
    case 'user.human.mfa.added':
    case 'user.human.mfa.removed': {
      const credential = payload.type === 'webauthn' || payload.type === 'passkey' ? 'fido2-roaming' : payload.type === 'totp' ? 'app' : 'app';
      const added = event.type === 'user.human.mfa.added';
      const events = [one(CAEP_CREDENTIAL_CHANGE, { credential_type: credential, change_type: added ? 'create' : 'delete' })];
      const level = payload.type === 'totp' || payload.type === 'passkey' ? assuranceChange(added, payload.signInFactors) : undefined;
      if (level) events.push(one(CAEP_ASSURANCE_LEVEL_CHANGE, level));
      return userEvent ? { userId: userEvent, events } : undefined;
    }
    case 'user.removed': {
      const granted = Array.isArray(payload.grantedProjects) ? payload.grantedProjects.filter((p): p is string => typeof p === 'string') : [];
      return userEvent ? { userId: userEvent, events: [one(RISC_ACCOUNT_PURGED)], grantedProjects: granted } : undefined;
    }
    case 'user.human.email.changed':
      return userEvent && typeof payload.email === 'string' && payload.email
        ? { userId: userEvent, events: [one(RISC_IDENTIFIER_CHANGED, { 'new-value': payload.email })] }
        : undefined;
    default:
      return undefined;
  }
}

/**
 * CAEP 1.0 §3.4 in NIST SP 800-63B's terms: a person with a second factor to sign in with (a TOTP authenticator or a
 * passkey; recovery codes only recover) can reach AAL2, one without only AAL1. Only the first such factor added and
 * the last removed change the level; `signInFactors` is how many the person holds after the change (the event says).
 */
function assuranceChange(added: boolean, signInFactors: unknown): Record<string, string> | undefined {
  if (typeof signInFactors !== 'number') return undefined;
  if (added && signInFactors === 1) {
    return { namespace: 'NIST-AAL', current_level: 'nist-aal2', previous_level: 'nist-aal1', change_direction: 'increase' };
  }
  if (!added && signInFactors === 0) {
    return { namespace: 'NIST-AAL', current_level: 'nist-aal1', previous_level: 'nist-aal2', change_direction: 'decrease' };
  }
  return undefined;
}

/** The Portcullis event types signalsOf reads, for the log's query. */
export const SIGNALLED_TYPES = [
  'session.terminated',
  'user.deactivated',
  'user.locked',
  'user.reactivated',
  'user.human.password.changed',
  'user.human.mfa.added',
  'user.human.mfa.removed',
  'user.human.email.changed',
  'user.removed',
];
