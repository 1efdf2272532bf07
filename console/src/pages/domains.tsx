import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { ActionButton, DeleteButton, Field, Form, Page, SearchedTable, useSearchedList } from '../components';
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
  const domains = useSearchedList(LIMIT, (page) => api<Schema<'OrgDomainListDto'>>('GET', `${base}${query(page)}`), [base]);
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
      <SearchedTable
        name={t('orgDomains')}
        list={domains}
        items={(page) => ({ found: page.domains, total: page.total })}
        headings={[t('domain'), t('status'), t('domainChallenge'), t('actions')]}
        empty={[t('emptyDomains'), t('emptyDomainsNext')]}
        rows={(found) =>
          found.map((d) => (
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
          ))
        }
      />
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
