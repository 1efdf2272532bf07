import type { ComponentChildren } from 'preact';
import { toChildArray } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';
import { language, t } from './i18n';
import { navigate } from './router';

export function Link(props: { href: string; children: ComponentChildren; current?: boolean; title?: string }) {
  const follow = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} onClick={follow} aria-current={props.current ? 'page' : undefined} title={props.title}>
      {props.children}
    </a>
  );
}

/**
 * An API error's `message` (or any other failure's), announced to screen readers; a 400's `details` (each field and
 * what is wrong with it, docs/product-rules.md "API") listed under it, so a form says which of its fields to fix.
 */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  const text =
    error instanceof ApiError
      ? t('apiError', { status: String(error.status), message: error.message })
      : error instanceof Error
        ? error.message
        : String(error);
  const details = error instanceof ApiError ? error.details.map(detailText).filter((d): d is string => Boolean(d)) : [];
  if (details.length === 0) {
    return (
      <p role="alert" class="error">
        {text}
      </p>
    );
  }
  return (
    <div role="alert" class="error">
      <p class="plain-p">{text}</p>
      <ul>
        {details.map((d, i) => (
          <li key={i}>{d}</li>
        ))}
      </ul>
    </div>
  );
}

function detailText(detail: unknown): string | null {
  const { field, message } = (detail ?? {}) as { field?: unknown; message?: unknown };
  if (typeof message !== 'string') return null;
  return typeof field === 'string' && field ? `${field}: ${message}` : message;
}

export function Notice({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p role="status" class="notice">
      {text}
    </p>
  );
}

interface InputProps {
  value: string;
  onInput: (value: string) => void;
  type?: 'text' | 'email' | 'password' | 'search' | 'url' | 'datetime-local' | 'number';
  required?: boolean;
  autoComplete?: string;
  placeholder?: string;
}

/** A text field with its visible label (the label element names the input). */
export function Field({ label, value, onInput, type = 'text', required, autoComplete, placeholder, hint }: InputProps & { label: string; hint?: string }) {
  const hintId = useId();
  const field = (
    <label class="field">
      <span>{label}</span>
      <input
        type={type as 'text'}
        required={required}
        autoComplete={autoComplete}
        placeholder={placeholder}
        value={value}
        aria-describedby={hint ? hintId : undefined}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
      />
    </label>
  );
  if (!hint) return field;
  // The hint stays outside the label: it describes the input without becoming part of its name.
  return (
    <div class="field-box">
      {field}
      <p class="hint" id={hintId}>
        {hint}
      </p>
    </div>
  );
}

export function TextArea({
  label,
  value,
  onInput,
  rows = 3,
  required,
}: {
  label: string;
  value: string;
  onInput: (value: string) => void;
  rows?: number;
  required?: boolean;
}) {
  return (
    <label class="field">
      <span>{label}</span>
      <textarea rows={rows} required={required} value={value} onInput={(e) => onInput((e.currentTarget as HTMLTextAreaElement).value)} />
    </label>
  );
}

export function Checkbox({ label, checked, onChange }: { label: string; checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={checked} onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)} />
      <span>{label}</span>
    </label>
  );
}

export function Select<T extends string>({
  label,
  value,
  options,
  onChange,
}: {
  label: string;
  value: T;
  options: { value: T; label: string }[];
  onChange: (value: T) => void;
}) {
  return (
    <label class="field">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as T)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A form whose submission runs `action` in the page; its error shows beside it. */
export function Form({
  label,
  submit,
  action,
  children,
  onDone,
}: {
  label: string;
  submit: string;
  action: () => Promise<unknown>;
  children: ComponentChildren;
  onDone?: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
      onDone?.();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="form" aria-label={label} onSubmit={onSubmit}>
      {children}
      <button type="submit" disabled={busy}>
        {submit}
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}

/** A button running an API call, with its error beside it. */
export function ActionButton({ label, action, danger }: { label: string; action: () => Promise<unknown>; danger?: boolean }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="action">
      <button type="button" class={danger ? 'danger' : undefined} disabled={busy} onClick={run}>
        {label}
      </button>
      <ErrorMessage error={error} />
    </span>
  );
}

/** Deleting asks once more, in the page (no window.confirm: scripts and screen readers see the question). */
export function DeleteButton({ label, confirm, action }: { label?: string; confirm?: string; action: () => Promise<unknown> }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        {label ?? t('delete')}
      </button>
    );
  }
  return (
    <span class="confirm">
      <ActionButton label={confirm ?? t('confirmDelete')} danger action={action} />
      <button type="button" onClick={() => setAsking(false)}>
        {t('cancel')}
      </button>
    </span>
  );
}

/**
 * A secret the API returns once (client secret, webhook secret, private key, token): shown here, with a copy
 * button (and a download of `download.content` when given: a key file), and never again.
 */
export function SecretOnce({
  label,
  value,
  onDismiss,
  multiline,
  download,
}: {
  label: string;
  value: string;
  onDismiss: () => void;
  multiline?: boolean;
  download?: { name: string; content: string };
}) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(value);
    setCopied(true);
  };
  const save = () => {
    // A blob: URL from this page's own data: no request leaves, and the CSP needs no exception for a download.
    const url = URL.createObjectURL(new Blob([download!.content], { type: 'application/json' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = download!.name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 0);
  };
  return (
    <section class="secret" aria-label={label}>
      <h3>{label}</h3>
      <p>{t('secretOnce')}</p>
      <label class="field">
        <span>{label}</span>
        {multiline ? <textarea readOnly rows={8} value={value} class="mono" /> : <input readOnly value={value} class="mono" />}
      </label>
      <button type="button" onClick={copy}>
        {t('copy')}
      </button>
      {download && (
        <button type="button" onClick={save}>
          {t('download')}
        </button>
      )}
      <button type="button" onClick={onDismiss}>
        {t('done')}
      </button>
      <Notice text={copied ? t('copied') : null} />
    </section>
  );
}

/** A value to hand on (an issuer, a URL, an id, a certificate when `multiline`): read-only, labelled, with a copy button named for it. */
export function CopyField({ label, value, multiline }: { label: string; value: string; multiline?: boolean }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(value);
    setCopied(true);
  };
  return (
    <div class="copyable">
      <label class="field">
        <span>{label}</span>
        {multiline ? <textarea readOnly rows={value.split('\n').length} value={value} class="mono" /> : <input readOnly value={value} class="mono" />}
      </label>
      <button type="button" onClick={copy}>
        {t('copyNamed', { name: label })}
      </button>
      <Notice text={copied ? t('copiedNamed', { name: label }) : null} />
    </div>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads on mount and whenever `deps` change; `reload` loads again (after a change). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error: unknown) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/** The loading and error states of a load, or its content. */
export function Loading<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error) return <ErrorMessage error={loaded.error} />;
  if (loaded.data === undefined) return <p class="muted">{t('loading')}</p>;
  return <>{children(loaded.data)}</>;
}

/** Previous and next pages of a list the server pages with `limit` and `offset`. */
export function Pager({
  offset,
  limit,
  total,
  shown,
  onChange,
}: {
  offset: number;
  limit: number;
  total?: number;
  shown: number;
  onChange: (offset: number) => void;
}) {
  const hasNext = total === undefined ? shown === limit : offset + shown < total;
  return (
    <nav class="pager" aria-label={t('paging')}>
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        {t('previous')}
      </button>
      <span>
        {shown === 0
          ? t('noResults')
          : total === undefined
            ? t('rangeOpen', { from: String(offset + 1), to: String(offset + shown) })
            : t('range', { from: String(offset + 1), to: String(offset + shown), total: String(total) })}
      </span>
      <button type="button" disabled={!hasNext} onClick={() => onChange(offset + limit)}>
        {t('next')}
      </button>
    </nav>
  );
}

/**
 * A list as a table: the caption names it for screen readers, one column header per heading; `children` are its
 * rows, each naming itself with its `<th scope="row">` (docs/console.md, "Accessibility"). `empty`: what is not
 * there and what to do next, shown instead of an empty body. `searchable`: a box that keeps the rows containing
 * its words (the rows this page holds).
 */
export function Table({
  caption,
  headings,
  children,
  empty,
  searchable,
}: {
  caption: string;
  headings: string[];
  children: ComponentChildren;
  empty?: [what: string, next: string];
  searchable?: boolean;
}) {
  const [filter, setFilter] = useState('');
  const [shown, setShown] = useState(0);
  const body = useRef<HTMLTableSectionElement>(null);
  const rows = toChildArray(children).length;
  // The rows are Preact's, their text the DOM's: the filter hides the rows without the words, after each render.
  useEffect(() => {
    const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
    let visible = 0;
    for (const row of Array.from(body.current?.rows ?? [])) {
      const text = (row.textContent ?? '').toLowerCase();
      row.hidden = !words.every((w) => text.includes(w));
      if (!row.hidden) visible++;
    }
    if (visible !== shown) setShown(visible);
  });
  // A wide table scrolls in its own box, never the page on a phone; the box takes the focus so a keyboard can
  // scroll it too (WCAG 2.1.1).
  return (
    <>
      {searchable && rows > 0 && (
        <div class="form" role="search" aria-label={t('filterListNamed', { name: caption })}>
          <Field label={t('filterList')} type="search" value={filter} onInput={setFilter} />
        </div>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1) */}
      <div class="table-wrap" role="group" aria-label={caption} tabIndex={0}>
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              {headings.map((heading, column) => (
                <th key={column} scope="col">
                  {heading}
                </th>
              ))}
            </tr>
          </thead>
          <tbody ref={body}>{children}</tbody>
        </table>
      </div>
      {rows > 0 && shown === 0 && filter.trim() !== '' && (
        <div class="pc-empty" role="status">
          <p>{t('noMatch', { query: filter.trim() })}</p>
        </div>
      )}
      {empty && rows === 0 && (
        <div class="pc-empty">
          <p>{empty[0]}</p>
          <p>{empty[1]}</p>
        </div>
      )}
    </>
  );
}

/**
 * A list's search, answered by the server (`?query=`, docs/product-rules.md "API"): submitted, it asks for the
 * first page of the matches. The state of a list that pages and searches so: `useListQuery`.
 */
function SearchForm({ name, onSearch }: { name: string; onSearch: (query: string) => void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="form inline"
      role="search"
      aria-label={t('searchListNamed', { name })}
      onSubmit={(event) => {
        event.preventDefault();
        onSearch(text.trim());
      }}
    >
      <Field label={t('searchList')} type="search" value={text} onInput={setText} />
      <button type="submit">{t('searchButton')}</button>
    </form>
  );
}

/** The query and the page of a searched list; a new query goes back to the first page. */
function useListQuery(): { query: string; offset: number; setOffset: (offset: number) => void; search: (query: string) => void } {
  const [state, setState] = useState({ query: '', offset: 0 });
  return {
    ...state,
    setOffset: (offset) => setState((s) => ({ ...s, offset })),
    search: (query) => setState({ query, offset: 0 }),
  };
}

/** The search and the page of a list the server searches and pages, and that page as loaded (`?query=&limit=&offset=`). */
export interface SearchedList<P> extends ReturnType<typeof useListQuery> {
  limit: number;
  loaded: Loaded<P>;
  reload: () => void;
}

/** Loads a list's page each time its search or offset changes; `load` is given the three to put in its URL. */
export function useSearchedList<P>(
  limit: number,
  load: (page: { query: string; limit: number; offset: number }) => Promise<P>,
  deps: unknown[],
): SearchedList<P> {
  const list = useListQuery();
  const loaded = useLoad(() => load({ query: list.query, limit, offset: list.offset }), [...deps, list.query, list.offset]);
  return { ...list, limit, loaded, reload: loaded.reload };
}

/**
 * A searched, paged list as every console page shows one: the search form, the table (with what an empty one says,
 * or that nothing matched the search), and the pager. `rows` draws the page's items, found in it by `items` (and
 * whatever else the page holds, such as the people it names).
 */
export function SearchedTable<P, R>({
  name,
  caption = name,
  list,
  items,
  headings,
  empty,
  rows,
}: {
  name: string;
  caption?: string;
  list: SearchedList<P>;
  items: (page: P) => { found: R[]; total?: number };
  headings: string[];
  empty: [what: string, next: string];
  rows: (found: R[], page: P) => ComponentChildren;
}) {
  return (
    <>
      <SearchForm name={name} onSearch={list.search} />
      <Loading loaded={list.loaded}>
        {(page) => {
          const { found, total } = items(page);
          return (
            <>
              <Table caption={caption} headings={headings} empty={emptyOf(list.query, ...empty)}>
                {rows(found, page)}
              </Table>
              <Pager offset={list.offset} limit={list.limit} total={total} shown={found.length} onChange={list.setOffset} />
            </>
          );
        }}
      </Loading>
    </>
  );
}

/** What an empty list says: what is missing and what to do next, or, when searched, that nothing matched. */
function emptyOf(query: string, what: string, next: string): [string, string] {
  return query ? [t('noMatch', { query }), t('noMatchNext')] : [what, next];
}

export function Page({ title, children }: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Portcullis`;
  }, [title]);
  return (
    <>
      <h1>{title}</h1>
      {children}
    </>
  );
}

/** A time as people read it ("3 minutes ago"), the exact time on hover and for screen readers in `<time>`. */
export function When({ value }: { value: string | number | undefined }) {
  if (value === undefined || value === null || value === '') return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <>{String(value)}</>;
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {relativeTime(date)}
    </time>
  );
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['week', 7 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

export function relativeTime(date: Date, now = Date.now()): string {
  const seconds = Math.round((date.getTime() - now) / 1000);
  const format = new Intl.RelativeTimeFormat(language(), { numeric: 'auto' });
  for (const [unit, size] of UNITS) if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  return format.format(0, 'second');
}

/**
 * A thing named for people, its id on demand: the id on hover (title) and a button that copies it, so nobody has to
 * read a UUID to know who or what a row is about.
 */
export function Named({ name, id, href }: { name?: string | null; id: string; href?: string }) {
  const [copied, setCopied] = useState(false);
  const label = name || id;
  const copy = async () => {
    await navigator.clipboard.writeText(id);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <span class="named">
      {href ? (
        <Link href={href} title={id}>
          {label}
        </Link>
      ) : (
        <span title={id}>{label}</span>
      )}
      {name && (
        <button type="button" class="copy-id" onClick={copy} aria-label={t('copyIdOf', { name: label })} title={id}>
          {copied ? t('copied') : t('id')}
        </button>
      )}
    </span>
  );
}

export function formatDate(value: string | number | undefined): string {
  if (value === undefined || value === null || value === '') return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

export function lines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}
