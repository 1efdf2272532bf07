import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { ActionButton, DeleteButton, Field, Form, Loading, Page, Pager, SearchForm, Table, emptyOf, useListQuery, useLoad } from '../components';
import { t } from '../i18n';

type Verification = Schema<'DomainChallengeDto'>;

const LIMIT = 50;

/**
 * An organization's domains (docs/federation.md, "Organization domains"; ORG_OWNER): add one, read where its
 * challenge goes (a DNS TXT record or an HTTPS file), verify it, remove it. Only verified domains may lead login
 * names to the organization's identity providers.
 */
export function DomainsPage({ orgId }: { orgId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/domains`;
  // Searched and paged by the server (`?query=` matches the domain).
  const list = useListQuery();
  const { offset } = list;
  const domains = useLoad(
    () => api<Schema<'OrgDomainListDto'>>('GET', `${base}${query({ query: list.query, limit: LIMIT, offset })}`),
    [base, list.query, offset],
  );
  const [domain, setDomain] = useState('');
  return (
    <Page title={t('orgDomains')}>
      <p class="muted">{t('orgDomainsIntro')}</p>
      <Form
        label={t('addDomain')}
        submit={t('addDomain')}
        action={() => api('POST', base, { domain })}
        onDone={() => {
          setDomain('');
          domains.reload();
        }}
      >
        <Field label={t('domain')} value={domain} onInput={setDomain} required />
      </Form>
      <SearchForm name={t('orgDomains')} onSearch={list.search} />
      <Loading loaded={domains}>
        {({ domains: found, total }) => (
          <>
            <Table
              caption={t('orgDomains')}
              headings={[t('domain'), t('status'), t('domainChallenge'), t('actions')]}
              empty={emptyOf(list.query, t('emptyDomains'), t('emptyDomainsNext'))}
            >
              {found.map((d) => (
                <tr key={d.domain}>
                  <th scope="row">{d.domain}</th>
                  <td>{d.primary ? t('primaryVerified') : d.verified ? t('verified') : t('notVerified')}</td>
                  <td>{d.verification && <Challenge verification={d.verification} />}</td>
                  <td>
                    {!d.verified && (
                      <ActionButton
                        label={t('verifyDomain')}
                        action={async () => {
                          await api('POST', `${base}/${enc(d.domain)}/verify`, {});
                          domains.reload();
                        }}
                      />
                    )}
                    {!d.primary && (
                      <DeleteButton
                        action={async () => {
                          await api('DELETE', `${base}/${enc(d.domain)}`);
                          domains.reload();
                        }}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </Table>
            <Pager offset={offset} limit={LIMIT} total={total} shown={found.length} onChange={list.setOffset} />
          </>
        )}
      </Loading>
    </Page>
  );
}

/** Either place proves the domain: the TXT record, or the file. */
function Challenge({ verification }: { verification: Verification }) {
  return (
    <dl>
      <dt>{t('dnsTxtRecord')}</dt>
      <dd class="mono">
        {verification.dnsTxtName} TXT "{verification.dnsTxtValue}"
      </dd>
      <dt>{t('httpsFile')}</dt>
      <dd class="mono">{verification.httpUrl}</dd>
    </dl>
  );
}
