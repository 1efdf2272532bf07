import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { DeleteButton, Field, Form, Page, SearchedTable, SecretOnce, Select, TextArea, useSearchedList } from '../components';
import { t } from '../i18n';

const LIMIT = 50;
type StreamType = 'syslog' | 'https';

/**
 * Audit streams (docs/audit-and-signals.md, "Audit streams"): the instance's (IAM_OWNER) or an organization's
 * (ORG_OWNER) — where each sends its records, how far behind it is and why the receiver last refused a batch.
 */
export function AuditStreamsPage({ orgId }: { orgId?: string }) {
  const base = orgId ? `/management/v1/orgs/${enc(orgId)}/audit-streams` : '/admin/v1/audit-streams';
  // Searched and paged by the server (`?query=` matches the name and the URL).
  const streams = useSearchedList(LIMIT, (page) => api<Schema<'AuditStreamListDto'>>('GET', `${base}${query(page)}`), [base]);
  const [name, setName] = useState('');
  const [type, setType] = useState<StreamType>('syslog');
  const [url, setUrl] = useState('');
  const [ca, setCa] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const create = async () => {
    const body = { name, type, url, ...(ca.trim() ? { caCertificate: ca.trim() } : {}) };
    const created = await api<Schema<'AuditStreamCreatedDto'>>('POST', base, body);
    if (created.secret) setSecret(created.secret);
  };
  const states: Record<string, string> = { active: t('streamActive'), retrying: t('streamRetrying'), failing: t('streamFailing') };
  return (
    <Page title={t('auditStreams')}>
      {secret && <SecretOnce label={t('webhookSecret')} value={secret} onDismiss={() => setSecret(null)} />}
      <Form
        label={t('addAuditStream')}
        submit={t('addAuditStream')}
        action={create}
        onDone={() => {
          setName('');
          setUrl('');
          setCa('');
          streams.reload();
        }}
      >
        <Field label={t('name')} value={name} onInput={setName} required />
        <Select
          label={t('type')}
          value={type}
          onChange={setType}
          options={[
            { value: 'syslog', label: t('streamSyslog') },
            { value: 'https', label: t('streamHttps') },
          ]}
        />
        <Field label={t('url')} value={url} onInput={setUrl} required placeholder={type === 'syslog' ? 'syslog+tls://siem.example.com:6514' : 'https://'} />
        <TextArea label={t('streamCaCertificate')} value={ca} onInput={setCa} />
      </Form>
      <SearchedTable
        name={t('auditStreams')}
        list={streams}
        items={(page) => ({ found: page.streams, total: page.total })}
        headings={[t('name'), t('url'), t('state'), t('streamLag'), t('actions')]}
        empty={[t('emptyAuditStreams'), t('emptyAuditStreamsNext')]}
        rows={(found) =>
          found.map((stream) => (
            <tr key={stream.id}>
              <th scope="row">{stream.name}</th>
              <td class="mono">{stream.url}</td>
              <td>
                {states[stream.state] ?? stream.state}
                {stream.lastError && <p class="muted">{t('streamLastError', { error: stream.lastError })}</p>}
              </td>
              <td>{stream.lag}</td>
              <td>
                <DeleteButton
                  action={async () => {
                    await api('DELETE', `${base}/${enc(stream.id)}`);
                    streams.reload();
                  }}
                />
              </td>
            </tr>
          ))
        }
      />
    </Page>
  );
}
