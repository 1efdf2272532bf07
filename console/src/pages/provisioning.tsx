import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { Form, Link, Page, SearchedTable, useSearchedList } from '../components';
import { t } from '../i18n';
import { navigate } from '../router';
import { useTargetFields } from './provisioning-form';

/** The path of the organization's targets in the API (docs/provisioning.md) and in the console. */
export const targetsApi = (orgId: string) => `/management/v1/orgs/${enc(orgId)}/provisioning/targets`;
export const targetsPage = (orgId: string) => `/console/orgs/${enc(orgId)}/provisioning`;
const LIMIT = 50;

/**
 * An organization's outbound SCIM targets (docs/provisioning.md, "Console"; ORG_OWNER): the list, and the form adding one. A new target
 * opens on its own page, where its connection can be tested and its status read.
 */
export function ProvisioningPage({ orgId }: { orgId: string }) {
  // Searched and paged by the server (`?query=` matches the name and the base URL).
  const targets = useSearchedList(LIMIT, (page) => api<Schema<'TargetListDto'>>('GET', `${targetsApi(orgId)}${query(page)}`), [orgId]);
  const form = useTargetFields(orgId);
  const create = async () => {
    const { id } = await api<Schema<'TargetCreatedDto'>>('POST', targetsApi(orgId), form.createBody());
    navigate(`${targetsPage(orgId)}/${enc(id)}`);
  };
  return (
    <Page title={t('provTargets')}>
      <SearchedTable
        name={t('provTargets')}
        list={targets}
        items={(page) => ({ found: page.targets, total: page.total })}
        headings={[t('name'), t('provBaseUrl'), t('provAuth'), t('provEnabledShort')]}
        empty={[t('provNoTargets'), t('provNoTargetsNext')]}
        rows={(found) =>
          found.map((target) => (
            <tr key={target.id}>
              <th scope="row">
                <Link href={`${targetsPage(orgId)}/${enc(target.id)}`}>{target.name}</Link>
              </th>
              <td class="mono">{target.baseUrl}</td>
              <td>{target.auth.type === 'bearer' ? t('provAuthBearer') : t('provAuthOauth')}</td>
              <td>{target.enabled ? t('yes') : t('no')}</td>
            </tr>
          ))
        }
      />
      <h2>{t('provAddTarget')}</h2>
      <Form label={t('provAddTarget')} submit={t('provAddTarget')} action={create}>
        {form.fields}
      </Form>
    </Page>
  );
}
