import type { ComponentChildren } from 'preact';
import type { Schema } from './api';
import type { EventType } from '../../src/common/events/event-types';
import { EVENT_SENTENCES, type SentencePlaceholder } from './event-sentences';
import { language, t } from './i18n';

type SearchedEvent = Schema<'EventDto'>;
type NamedUser = Schema<'EventUserDto'>;
type NamedObject = Schema<'EventObjectDto'>;

/** The names the event search answered beside a page (`withNames`), by id. */
export interface EventNames {
  users: Map<string, NamedUser>;
  objects: Map<string, NamedObject>;
}

/** A value of a sentence: shown by name, its id (and login name) on hover; a name no longer known shows a short id. */
interface Part {
  text: string;
  title?: string;
  mono?: boolean;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** A short id for what is no longer known by name, the whole id on hover. */
function byId(id: string): Part {
  return { text: id.length > 12 ? `${id.slice(0, 8)}…` : id, title: id, mono: true };
}

function userPart(id: string, names: EventNames, fallback: string | null = null): Part {
  const user = names.users.get(id);
  if (user) return { text: user.displayName || user.loginName, title: `${user.loginName} · ${id}` };
  return fallback ? { text: fallback, title: id } : byId(id);
}

function objectPart(id: string | null, names: EventNames, fallback: string | null = null): Part | null {
  if (!id) return fallback ? { text: fallback } : null;
  const object = names.objects.get(id);
  if (object) return { text: object.name, title: id };
  return fallback ? { text: fallback, title: id } : byId(id);
}

/** The user an event is about: the aggregate of a `user` event, else a payload's `userId` (a membership). */
export function userOf(e: SearchedEvent): string | null {
  if (e.aggregate.type.type === 'user') return e.aggregate.id;
  return str(e.payload?.userId);
}

/** The value of one placeholder for one event, or null when the event does not carry it. */
function partOf(key: SentencePlaceholder, e: SearchedEvent, names: EventNames): Part | null {
  const p = e.payload ?? {};
  const aggregate = (type: string) => (e.aggregate.type.type === type ? e.aggregate.id : null);
  switch (key) {
    case 'actor':
      return e.editor.userId ? userPart(e.editor.userId, names) : { text: t('systemActor') };
    case 'user': {
      const id = userOf(e);
      return id ? userPart(id, names, str(p.userName)) : null;
    }
    case 'party': {
      const userId = str(p.userId);
      if (userId) return userPart(userId, names);
      return objectPart(str(p.groupId), names);
    }
    case 'org':
      return objectPart(aggregate('org') ?? (e.aggregate.resourceOwner === 'instance' ? null : e.aggregate.resourceOwner), names, str(p.name));
    case 'project':
      return objectPart(str(p.projectId) ?? aggregate('project'), names, aggregate('project') ? str(p.name) : null);
    case 'app':
      return objectPart(str(p.appId) ?? aggregate('application'), names, str(p.name) ?? str(p.clientId));
    case 'group':
      return objectPart(str(p.groupId) ?? aggregate('group'), names, str(p.displayName));
    case 'name': {
      const named = names.objects.get(e.aggregate.id);
      if (named) return { text: named.name, title: e.aggregate.id };
      for (const field of ['name', 'displayName', 'url', 'issuer', 'resource']) {
        const value = str(p[field]);
        if (value) return { text: value, title: e.aggregate.id };
      }
      // A user's sign-in or link names its provider by id only.
      return byId(str(p.idpId) ?? e.aggregate.id);
    }
    case 'roles':
      return Array.isArray(p.roles) && p.roles.length > 0 ? { text: p.roles.join(', ') } : null;
    case 'role':
      return str(p.key) ? { text: str(p.key)! } : null;
    case 'domain':
      return str(p.domain) ? { text: str(p.domain)! } : null;
    case 'client':
      return str(p.clientName) || str(p.clientId) ? { text: (str(p.clientName) ?? str(p.clientId))! } : null;
    case 'feature':
      return str(p.feature) ? { text: `${p.feature} = ${String(p.enabled ?? p.value ?? '')}` } : null;
  }
}

/** The sentence of an event type in the console's language; an unknown type (a newer server) its message. */
export function sentenceOf(type: string): string | null {
  return EVENT_SENTENCES[language()][type as EventType] ?? null;
}

/**
 * An event as a sentence about people and things by name ("Ada Lovelace added Bob Smith to Payroll admins"), each
 * name's id on hover. A value the event does not carry reads as "—".
 */
export function EventSentence({ event, names }: { event: SearchedEvent; names: EventNames }) {
  const sentence = sentenceOf(event.type.type);
  if (!sentence) return <>{event.type.localized.localizedMessage}</>;
  const parts: ComponentChildren[] = [];
  let at = 0;
  for (const match of sentence.matchAll(/\{(\w+)\}/g)) {
    parts.push(sentence.slice(at, match.index));
    const part = partOf(match[1] as SentencePlaceholder, event, names);
    parts.push(
      part ? (
        <span class={part.mono ? 'timeline-who mono' : 'timeline-who'} title={part.title}>
          {part.text}
        </span>
      ) : (
        '—'
      ),
    );
    at = (match.index ?? 0) + match[0].length;
  }
  parts.push(sentence.slice(at));
  return <span class="sentence">{parts}</span>;
}
