import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { DeleteButton, Page, SearchedTable, When, useSearchedList } from '../components';
import { t } from '../i18n';

const LIMIT = 50;

/**
 * Clients that registered themselves (RFC 7591, docs/agents.md, "Registration"): an organization's (ORG_OWNER), or,
 * without `orgId`, those registered openly that no organization holds yet (IAM_OWNER), which count toward the
 * instance's cap until removed. Removing one ends every grant, code and token issued to it.
 */
export function RegisteredClientsPage({ orgId }: { orgId?: string }) {
  const base = orgId ? `/management/v1/orgs/${enc(orgId)}/registered-clients` : '/admin/v1/registered-clients/unbound';
  const clients = useSearchedList(LIMIT, (page) => api<Schema<'RegisteredClientListDto'>>('GET', `${base}${query(page)}`), [base]);
  const [removed, setRemoved] = useState<number | undefined>();
  const title = orgId ? t('registeredClients') : t('unboundRegisteredClients');
  const unbound = orgId ? 0 : (clients.loaded.data?.total ?? 0);
  return (
    <Page title={title}>
      <p class="muted">{orgId ? t('registeredClientsIntro') : t('unboundRegisteredClientsIntro')}</p>
      {unbound > 0 && (
        <p>
          <DeleteButton
            label={t('removeAllUnbound')}
            confirm={t('confirmRemoveAllUnbound', { count: String(unbound) })}
            action={async () => {
              const answer = await api<Schema<'RemovedRegisteredClientsDto'>>('DELETE', base);
              setRemoved(answer.removed);
              clients.reload();
            }}
          />
        </p>
      )}
      {removed !== undefined && <p role="status">{t('removedUnbound', { count: String(removed) })}</p>}
      <SearchedTable
        name={t('registeredClients')}
        caption={title}
        list={clients}
        items={(page) => ({ found: page.clients, total: page.total })}
        headings={[t('clientName'), t('clientId'), t('registeredRedirectUris'), t('registeredAt'), t('lastUsedAt'), t('actions')]}
        empty={[t('emptyRegisteredClients'), orgId ? t('emptyRegisteredClientsNext') : t('emptyUnboundNext')]}
        rows={(found) =>
          found.map((c) => (
            <tr key={c.clientId}>
              <th scope="row">{c.clientName || <span class="muted">{t('unnamedClient')}</span>}</th>
              <td class="mono">{c.clientId}</td>
              <td class="mono">{c.redirectUris.join(' ')}</td>
              <td>
                <When value={c.createdAt} />
              </td>
              <td>
                <When value={c.lastUsedAt} />
              </td>
              <td>
                <DeleteButton
                  label={t('remove')}
                  confirm={t('confirmRemoveClient', { name: c.clientName || c.clientId })}
                  action={async () => {
                    await api('DELETE', `${base}/${enc(c.clientId)}`);
                    clients.reload();
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
