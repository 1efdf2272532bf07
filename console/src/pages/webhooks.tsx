import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import type { Schema } from '../api';
import { DeleteButton, Field, Form, Loading, Page, SecretOnce, Table, useLoad } from '../components';
import { t } from '../i18n';

type Webhook = Schema<'WebhookDto'>;

/** Webhook subscriptions (docs/product-rules.md, "Webhooks"): the instance's (IAM_OWNER) or an organization's (ORG_OWNER). */
export function WebhooksPage({ orgId }: { orgId?: string }) {
  const base = orgId ? `/management/v1/orgs/${enc(orgId)}/webhooks` : '/admin/v1/webhooks';
  const hooks = useLoad(() => api<Schema<'WebhookListDto'>>('GET', base), [base]);
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState('');
  const [onlyOrg, setOnlyOrg] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const create = async () => {
    const eventTypes = types
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
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
        <Field label={t('eventTypesOptional')} value={types} onInput={setTypes} />
        {!orgId && <Field label={t('organizationIdOptional')} value={onlyOrg} onInput={setOnlyOrg} />}
      </Form>
      <Loading loaded={hooks}>
        {({ webhooks }) => (
          <Table caption={t('webhooks')} headings={[t('url'), t('eventTypes'), t('organizationId'), t('actions')]}>
            {webhooks.map((w) => (
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
            ))}
          </Table>
        )}
      </Loading>
      {open && <Deliveries path={`${base}/${enc(open)}/deliveries`} />}
    </Page>
  );
}

function Deliveries({ path }: { path: string }) {
  const deliveries = useLoad(() => api<Schema<'DeliveryListDto'>>('GET', path), [path]);
  return (
    <section class="panel" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">{t('deliveries')}</h2>
      <Loading loaded={deliveries}>
        {({ deliveries: list }) => (
          <Table caption={t('deliveries')} headings={[t('sequence'), t('status'), t('attempts'), t('lastAnswer')]}>
            {list.map((d) => (
              <tr key={d.eventId}>
                <th scope="row">{d.sequence}</th>
                <td>{d.status}</td>
                <td>{d.attempts}</td>
                <td>{d.lastError ?? (d.lastStatus ? String(d.lastStatus) : '')}</td>
              </tr>
            ))}
          </Table>
        )}
      </Loading>
    </section>
  );
}
