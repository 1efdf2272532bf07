import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import { DeleteButton, Field, Form, Loading, Pager, SecretOnce, Table, When, formatDate, useLoad } from '../components';
import { t } from '../i18n';

/** One credential as the list routes show it: when it was made and expires, never its material. */
export interface CredentialRow {
  id: string;
  createdAt: string;
  expirationDate?: string;
}

/** What adding one answered: the secret shown once, and a file to download (a key's JSON) if any. */
export interface Issued {
  secret: string;
  download?: { name: string; content: string };
}

const LIMIT = 20;

/**
 * A paged list of credentials (a machine user's keys or tokens, an application's keys) with adding —
 * the secret shown once — and removal after a confirmation. `path` is the collection (`…/keys`,
 * `…/pats`); `add` posts to it and says what to show.
 */
export function Credentials(props: {
  id: string;
  title: string;
  path: string;
  rows: (data: unknown) => { items: CredentialRow[]; total: number };
  addLabel: string;
  secretLabel: string;
  multiline?: boolean;
  withExpiry?: boolean;
  add: (body: { expirationDate?: string }) => Promise<Issued>;
}) {
  const [offset, setOffset] = useState(0);
  const list = useLoad(() => api('GET', `${props.path}${query({ limit: LIMIT, offset })}`).then(props.rows), [props.path, offset]);
  const [expires, setExpires] = useState('');
  const [issued, setIssued] = useState<Issued | null>(null);
  const add = async () => {
    // datetime-local is the browser's local time; the API takes ISO 8601 (UTC).
    const body = props.withExpiry && expires ? { expirationDate: new Date(expires).toISOString() } : {};
    setIssued(await props.add(body));
    setExpires('');
    list.reload();
  };
  return (
    <section class="panel" aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      {issued ? (
        <SecretOnce label={props.secretLabel} value={issued.secret} multiline={props.multiline} download={issued.download} onDismiss={() => setIssued(null)} />
      ) : (
        <Form label={props.addLabel} submit={props.addLabel} action={add}>
          {props.withExpiry && <Field label={t('expiresOptional')} type="datetime-local" value={expires} onInput={setExpires} />}
        </Form>
      )}
      <Loading loaded={list}>
        {({ items, total }) => (
          <>
            {items.length > 0 && (
              <Table caption={props.title} headings={[t('id'), t('created'), t('expires'), t('actions')]} searchable>
                {items.map((c) => (
                  <tr key={c.id}>
                    <th scope="row" class="mono">
                      {c.id}
                    </th>
                    <td>
                      <When value={c.createdAt} />
                    </td>
                    <td>
                      {/* An expiry is a date someone chose: shown as that date, not as a distance. */}
                      {c.expirationDate ? formatDate(c.expirationDate) : t('never')}
                    </td>
                    <td>
                      <DeleteButton
                        label={t('remove')}
                        action={async () => {
                          await api('DELETE', `${props.path}/${enc(c.id)}`);
                          if (items.length === 1 && offset > 0) setOffset(Math.max(0, offset - LIMIT));
                          else list.reload();
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </Table>
            )}
            <Pager offset={offset} limit={LIMIT} total={total} shown={items.length} onChange={setOffset} />
          </>
        )}
      </Loading>
    </section>
  );
}
