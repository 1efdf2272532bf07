import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { Schema } from '../api';
import { ErrorMessage, Field, Page, Table, When, Checkbox } from '../components';
import { EVENT_TYPES } from '../event-types';
import { EventSentence, type EventNames, userOf } from '../event-sentence';
import { t } from '../i18n';

type SearchedEvent = Schema<'EventDto'>;
/**
 * Routine events: one per successful sign-in step, so a console sign-in alone writes one. By default a run of them is
 * one row ("4 successful sign-in checks"), so they do not push the changes people look for off the page.
 */
const ROUTINE = new Set(['user.human.password.check.succeeded', 'user.human.mfa.check.succeeded', 'user.idp.login.succeeded']);

/** The event search takes at most this many types (SearchEventsDto); a prefix matching more is refused here. */
const MAX_TYPES = 100;

const NO_NAMES: EventNames = { users: new Map(), objects: new Map() };

function nameOf(id: string, names: EventNames): string | null {
  const user = names.users.get(id);
  if (!user) return null;
  return user.displayName ? `${user.displayName} (${user.loginName})` : user.loginName;
}

interface Filters {
  type: string;
  aggregateId: string;
  editorId: string;
  orgId: string;
  since: string;
  until: string;
}

const LIMIT = 50;
const EMPTY: Filters = { type: '', aggregateId: '', editorId: '', orgId: '', since: '', until: '' };

/** The known types a filter names: an exact type, else every type that starts with it (`user.human`, `org.`). */
export function typesOf(filter: string): string[] | { unknown: string } {
  const wanted = filter
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const types = new Set<string>();
  for (const w of wanted) {
    const prefix = w.endsWith('.') ? w : `${w}.`;
    const found = EVENT_TYPES.filter((type) => type === w || type.startsWith(prefix));
    if (found.length === 0) return { unknown: w };
    for (const type of found) types.add(type);
  }
  return [...types];
}

/** A row of the timeline: one event, or a run of routine events folded into one. */
type Row = { kind: 'event'; event: SearchedEvent } | { kind: 'routine'; events: SearchedEvent[] };

function rowsOf(events: SearchedEvent[], fold: boolean): Row[] {
  const rows: Row[] = [];
  for (const event of events) {
    const last = rows[rows.length - 1];
    if (fold && ROUTINE.has(event.type.type)) {
      if (last?.kind === 'routine') last.events.push(event);
      else rows.push({ kind: 'routine', events: [event] });
    } else rows.push({ kind: 'event', event });
  }
  return rows;
}

/**
 * Event search (IAM_OWNER) as a timeline, newest first (`asc: false`), the newest page on opening; "older" pages on
 * with the last `sequence` as the cursor. Each row says who did what to whom, when ("3 minutes ago", the exact time on
 * hover), by name; its details hold the ids and the payload. Filters: a type or a prefix of types (checked against
 * the known types, so a typo is named), the user acting, what the event is about, the organization, a time range.
 */
export function EventsPage({ initial }: { initial?: Partial<Filters> }) {
  const [filters, setFilters] = useState<Filters>({ ...EMPTY, ...initial });
  const [fold, setFold] = useState(true);
  const [events, setEvents] = useState<SearchedEvent[] | null>(null);
  // Kept across "older events": each page names the users and things of its own events.
  const [names, setNames] = useState<EventNames>(NO_NAMES);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const set = (key: keyof Filters) => (value: string) => setFilters({ ...filters, [key]: value });

  const search = async (cursor?: string, current: Filters = filters) => {
    setError(null);
    const body: Record<string, unknown> = { asc: false, limit: LIMIT, withNames: true };
    if (current.type.trim()) {
      const types = typesOf(current.type);
      if (!Array.isArray(types)) return setError(new Error(t('unknownEventType', { type: types.unknown })));
      if (types.length > MAX_TYPES) return setError(new Error(t('tooManyEventTypes', { count: String(types.length), max: String(MAX_TYPES) })));
      body.event_types = types;
    }
    if (current.aggregateId.trim()) body.aggregate_id = current.aggregateId.trim();
    if (current.editorId.trim()) body.editor_user_id = current.editorId.trim();
    if (current.orgId.trim()) body.resource_owner = current.orgId.trim();
    if (current.since) body.since = new Date(current.since).toISOString();
    if (current.until) body.until = new Date(current.until).toISOString();
    if (cursor) body.sequence = cursor;
    try {
      const result = await api<Schema<'EventListDto'>>('POST', '/admin/v1/events/_search', body);
      setEvents(cursor ? [...(events ?? []), ...result.events] : result.events);
      const kept = cursor ? names : NO_NAMES;
      setNames({
        users: new Map([...kept.users, ...(result.users ?? []).map((u) => [u.userId, u] as const)]),
        objects: new Map([...kept.objects, ...(result.objects ?? []).map((o) => [o.id, o] as const)]),
      });
      setMore(result.events.length === LIMIT);
    } catch (e) {
      setError(e);
    }
  };
  const only = (change: Partial<Filters>) => {
    const next = { ...filters, ...change };
    setFilters(next);
    void search(undefined, next);
  };

  // The newest events at once (docs/console.md, "What it shows"), without a search first.
  useEffect(() => void search(), []);

  const filtered = Object.values(filters).some((v) => v.trim() !== '');
  return (
    <Page title={t('events')}>
      <form
        class="form"
        role="search"
        aria-label={t('searchEvents')}
        onSubmit={(e) => {
          e.preventDefault();
          void search();
        }}
      >
        <Field label={t('eventTypeOrPrefix')} value={filters.type} onInput={set('type')} placeholder="user.human" />
        <Field label={t('aggregateId')} value={filters.aggregateId} onInput={set('aggregateId')} />
        <Field label={t('editorId')} value={filters.editorId} onInput={set('editorId')} />
        <Field label={t('organizationId')} value={filters.orgId} onInput={set('orgId')} />
        <Field label={t('since')} type="datetime-local" value={filters.since} onInput={set('since')} />
        <Field label={t('until')} type="datetime-local" value={filters.until} onInput={set('until')} />
        <button type="submit">{t('searchButton')}</button>
        {filtered && (
          <button type="button" onClick={() => only(EMPTY)}>
            {t('clearFilters')}
          </button>
        )}
      </form>
      <Checkbox label={t('foldRoutine')} checked={fold} onChange={setFold} />
      <ErrorMessage error={error} />
      {events && events.length === 0 && (
        <div class="pc-empty">
          <p>{t('noEvents')}</p>
          <p>{filtered ? t('noEventsFiltered') : t('noEventsYet')}</p>
        </div>
      )}
      {events && events.length > 0 && (
        <>
          <Table caption={t('events')} headings={[t('time'), t('eventType'), t('whatHappened'), t('details')]}>
            {rowsOf(events, fold).map((row) =>
              row.kind === 'event' ? (
                <EventRow key={row.event.sequence} event={row.event} names={names} only={only} />
              ) : (
                <RoutineRow key={row.events[0]!.sequence} events={row.events} names={names} />
              ),
            )}
          </Table>
          {more && (
            <button type="button" onClick={() => void search(events[events.length - 1]?.sequence)}>
              {t('olderEvents')}
            </button>
          )}
        </>
      )}
    </Page>
  );
}

function EventRow({ event: e, names, only }: { event: SearchedEvent; names: EventNames; only: (f: Partial<Filters>) => void }) {
  return (
    <tr>
      <td>
        <When value={e.creationDate} />
      </td>
      <th scope="row">{e.type.type}</th>
      <td>
        <EventSentence event={e} names={names} />
      </td>
      <td>
        <details>
          <summary>{t('details')}</summary>
          <dl class="facts">
            <dt>{t('time')}</dt>
            <dd>{new Date(e.creationDate).toLocaleString()}</dd>
            <dt>{t('sequence')}</dt>
            <dd>{e.sequence}</dd>
            <dt>{t('aggregateId')}</dt>
            <dd class="mono">
              {e.aggregate.type.type} {e.aggregate.id}
            </dd>
            <dt>{t('organizationId')}</dt>
            <dd class="mono">{e.aggregate.resourceOwner}</dd>
            <dt>{t('eventType')}</dt>
            <dd>{e.type.localized.localizedMessage}</dd>
            <dt>{t('editor')}</dt>
            <dd class="mono">{e.editor.userId ?? t('system')}</dd>
          </dl>
          {e.payload && <pre class="event-detail">{JSON.stringify(e.payload, null, 2)}</pre>}
          <span class="action">
            <button type="button" onClick={() => only({ aggregateId: e.aggregate.id })}>
              {t('onlyAbout')}
            </button>
            {e.editor.userId && (
              <button type="button" onClick={() => only({ editorId: e.editor.userId! })}>
                {t('onlyBy')}
              </button>
            )}
            <button type="button" onClick={() => only({ type: e.type.type })}>
              {t('onlyType')}
            </button>
          </span>
        </details>
      </td>
    </tr>
  );
}

/** A run of routine sign-in checks as one row: how many, who, and each on demand. */
function RoutineRow({ events, names }: { events: SearchedEvent[]; names: EventNames }) {
  const first = events[0]!;
  const people = [...new Set(events.map((e) => userOf(e) ?? e.aggregate.id))].map((id) => nameOf(id, names) ?? id);
  return (
    <tr>
      <td>
        <When value={first.creationDate} />
      </td>
      <th scope="row">{events.length === 1 ? t('routineCheck') : t('routineChecks', { count: String(events.length) })}</th>
      <td>
        {events.length === 1 ? (
          <EventSentence event={first} names={names} />
        ) : (
          <>
            {first.type.localized.localizedMessage}: {people.join(', ')}
          </>
        )}
      </td>
      <td>
        <details>
          <summary>{t('details')}</summary>
          <ul class="plain">
            {events.map((e) => (
              <li key={e.sequence}>
                <When value={e.creationDate} /> <EventSentence event={e} names={names} /> <span class="mono">{e.aggregate.id}</span>
              </li>
            ))}
          </ul>
        </details>
      </td>
    </tr>
  );
}
