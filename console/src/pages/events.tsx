import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { Schema } from '../api';
import { ErrorMessage, Field, Page, Table, formatDate } from '../components';
import { t } from '../i18n';

type SearchedEvent = Schema<'EventDto'>;

/** `users` of the answer (docs/product-rules.md, "Import and event search"): names beside the ids the events mention. */
type NamedUser = Schema<'EventUserDto'>;

/** The user an event is about: the aggregate of a `user` event, else a payload's `userId` (a membership). */
function targetOf(e: SearchedEvent): string | null {
  if (e.aggregate.type.type === 'user') return e.aggregate.id;
  const userId = e.payload?.userId;
  return typeof userId === 'string' ? userId : null;
}

/** A user id with its names beside it when the API named it (a removed user keeps only its id). */
function UserRef({ id, names }: { id: string | null; names: Map<string, NamedUser> }) {
  if (!id) return null;
  const user = names.get(id);
  return (
    <>
      {user && <span class="user-name">{user.displayName ? `${user.displayName} (${user.loginName})` : user.loginName}</span>}
      <span class="mono">{id}</span>
    </>
  );
}

interface Filters {
  type: string;
  aggregateId: string;
  orgId: string;
  since: string;
  until: string;
}

const LIMIT = 50;
const EMPTY: Filters = { type: '', aggregateId: '', orgId: '', since: '', until: '' };

/**
 * Event search (IAM_OWNER), newest first (`asc: false`), the newest page on opening; "older" pages on with the last
 * `sequence` as the cursor. The editor and the user an event is about show with their names beside their ids.
 */
export function EventsPage({ initial }: { initial?: Partial<Filters> }) {
  const [filters, setFilters] = useState<Filters>({ ...EMPTY, ...initial });
  const [events, setEvents] = useState<SearchedEvent[] | null>(null);
  // Kept across "older events": each page names the users of its own events.
  const [names, setNames] = useState<Map<string, NamedUser>>(new Map());
  const [more, setMore] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const set = (key: keyof Filters) => (value: string) => setFilters({ ...filters, [key]: value });

  const search = async (cursor?: string) => {
    setError(null);
    const body: Record<string, unknown> = { asc: false, limit: LIMIT, withNames: true };
    if (filters.type.trim())
      body.event_types = filters.type
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    if (filters.aggregateId.trim()) body.aggregate_id = filters.aggregateId.trim();
    if (filters.orgId.trim()) body.resource_owner = filters.orgId.trim();
    if (filters.since) body.since = new Date(filters.since).toISOString();
    if (filters.until) body.until = new Date(filters.until).toISOString();
    if (cursor) body.sequence = cursor;
    try {
      const result = await api<Schema<'EventListDto'>>('POST', '/admin/v1/events/_search', body);
      setEvents(cursor ? [...(events ?? []), ...result.events] : result.events);
      setNames(new Map([...(cursor ? names : []), ...(result.users ?? []).map((u) => [u.userId, u] as const)]));
      setMore(result.events.length === LIMIT);
    } catch (e) {
      setError(e);
    }
  };

  // The newest events at once (docs/console.md, "What it shows"), without a search first.
  useEffect(() => void search(), []);

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
        <Field label={t('eventType')} value={filters.type} onInput={set('type')} placeholder="user.human.added" />
        <Field label={t('aggregateId')} value={filters.aggregateId} onInput={set('aggregateId')} />
        <Field label={t('organizationId')} value={filters.orgId} onInput={set('orgId')} />
        <Field label={t('since')} type="datetime-local" value={filters.since} onInput={set('since')} />
        <Field label={t('until')} type="datetime-local" value={filters.until} onInput={set('until')} />
        <button type="submit">{t('searchButton')}</button>
      </form>
      <ErrorMessage error={error} />
      {events && (
        <>
          <Table
            caption={t('events')}
            headings={[t('time'), t('eventType'), t('description'), t('aggregateId'), t('organizationId'), t('eventUser'), t('editor')]}
          >
            {events.map((e) => (
              <tr key={e.sequence}>
                <td>{formatDate(e.creationDate)}</td>
                <th scope="row">{e.type.type}</th>
                <td>{e.type.localized.localizedMessage}</td>
                <td class="mono">{e.aggregate.id}</td>
                <td class="mono">{e.aggregate.resourceOwner}</td>
                <td class="user-ref">
                  <UserRef id={targetOf(e)} names={names} />
                </td>
                <td class="user-ref">
                  <UserRef id={e.editor.userId} names={names} />
                </td>
              </tr>
            ))}
          </Table>
          {events.length === 0 && <p>{t('noResults')}</p>}
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
