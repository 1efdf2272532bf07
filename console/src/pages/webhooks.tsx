import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { Checkbox, DeleteButton, Field, Form, Loading, Page, Pager, SearchedTable, SecretOnce, Table, useLoad, useSearchedList } from '../components';
import { EVENT_TYPES } from '../event-types';
import { t } from '../i18n';

type Webhook = Schema<'WebhookDto'>;

const LIMIT = 50;

/** Webhook subscriptions (docs/product-rules.md, "Webhooks"): the instance's (IAM_OWNER) or an organization's (ORG_OWNER). */
export function WebhooksPage({ orgId }: { orgId?: string }) {
  const base = orgId ? `/management/v1/orgs/${enc(orgId)}/webhooks` : '/admin/v1/webhooks';
  // Searched and paged by the server (`?query=` matches the URL).
  const hooks = useSearchedList(LIMIT, (page) => api<Schema<'WebhookListDto'>>('GET', `${base}${query(page)}`), [base]);
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState('');
  const [onlyOrg, setOnlyOrg] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const chosen = types
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const choose = (type: string, on: boolean) => setTypes((on ? [...chosen, type] : chosen.filter((c) => c !== type)).join(', '));
  const create = async () => {
    const eventTypes = chosen;
    // A typo is named before anything is sent, with the known type it most likely meant.
    const unknown = eventTypes.find((type) => !EVENT_TYPES.includes(type));
    if (unknown) throw new Error(t('unknownEventTypeMeant', { type: unknown, meant: closest(unknown) }));
    const body = { url, ...(eventTypes.length ? { eventTypes } : {}), ...(!orgId && onlyOrg.trim() ? { orgId: onlyOrg.trim() } : {}) };
    setSecret((await api<Schema<'WebhookCreatedDto'>>('POST', base, body)).secret);
  };
  return (
    <Page title={t('webhooks')}>
      {secret && <SecretOnce label={t('webhookSecret')} value={secret} onDismiss={() => setSecret(null)} />}
      <Form
        label={t('createWebhook')}
        submit={t('createWebhook')}
        action={create}
        onDone={() => {
          setUrl('');
          setTypes('');
          hooks.reload();
        }}
      >
        <Field label={t('url')} type="url" value={url} onInput={setUrl} required />
        <Field label={t('eventTypesOptional')} value={types} onInput={setTypes} hint={t('eventTypesHint')} />
        <details class="type-picker">
          <summary>{t('chooseEventTypes')}</summary>
          <fieldset>
            <legend>{t('knownEventTypes')}</legend>
            {EVENT_TYPES.map((type) => (
              <Checkbox key={type} label={type} checked={chosen.includes(type)} onChange={(on) => choose(type, on)} />
            ))}
          </fieldset>
        </details>
        {!orgId && <Field label={t('organizationIdOptional')} value={onlyOrg} onInput={setOnlyOrg} />}
      </Form>
      <SearchedTable
        name={t('webhooks')}
        list={hooks}
        items={(page) => ({ found: page.webhooks, total: page.total })}
        headings={[t('url'), t('eventTypes'), t('organizationId'), t('actions')]}
        empty={[t('emptyWebhooks'), t('emptyWebhooksNext')]}
        rows={(webhooks) =>
          webhooks.map((w) => (
            <tr key={w.id}>
              <th scope="row">{w.url}</th>
              <td>{w.eventTypes?.length ? w.eventTypes.join(', ') : t('allEvents')}</td>
              <td class="mono">{w.orgId ?? ''}</td>
              <td>
                <button type="button" aria-expanded={open === w.id} onClick={() => setOpen(open === w.id ? null : w.id)}>
                  {t('deliveries')}
                </button>
                <DeleteButton
                  action={async () => {
                    await api('DELETE', `${base}/${enc(w.id)}`);
                    hooks.reload();
                  }}
                />
              </td>
            </tr>
          ))
        }
      />
      {open && <Deliveries path={`${base}/${enc(open)}/deliveries`} />}
    </Page>
  );
}

const DELIVERIES_LIMIT = 50;

/** A subscription's deliveries, newest first, a page at a time (the log keeps every event's last attempts). */
function Deliveries({ path }: { path: string }) {
  const [offset, setOffset] = useState(0);
  const deliveries = useLoad(() => api<Schema<'DeliveryListDto'>>('GET', `${path}${query({ limit: DELIVERIES_LIMIT, offset })}`), [path, offset]);
  return (
    <section class="panel" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">{t('deliveries')}</h2>
      <Loading loaded={deliveries}>
        {({ deliveries: list }) => (
          <>
            <Table
              caption={t('deliveries')}
              headings={[t('sequence'), t('status'), t('attempts'), t('lastAnswer')]}
              empty={[t('emptyDeliveries'), t('emptyDeliveriesNext')]}
              searchable
            >
              {list.map((d) => (
                <tr key={d.eventId}>
                  <th scope="row">{d.sequence}</th>
                  <td>{d.status}</td>
                  <td>{d.attempts}</td>
                  <td>{d.lastError ?? (d.lastStatus ? String(d.lastStatus) : '')}</td>
                </tr>
              ))}
            </Table>
            <Pager offset={offset} limit={DELIVERIES_LIMIT} shown={list.length} onChange={setOffset} />
          </>
        )}
      </Loading>
    </section>
  );
}

/** The known type nearest to a typo (fewest single-character edits). */
function closest(typo: string): string {
  let best = EVENT_TYPES[0]!;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const type of EVENT_TYPES) {
    const d = distance(typo, type);
    if (d < bestDistance) [best, bestDistance] = [type, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}
