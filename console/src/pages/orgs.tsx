import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { DeleteButton, Field, Form, Loading, Named, Page, Pager, SearchForm, Table, emptyOf, useListQuery, useLoad } from '../components';
import { t } from '../i18n';

export type Org = Schema<'OrgDto'>;

const LIMIT = 50;

/** Organizations (IAM_OWNER): GET/POST /admin/v1/orgs, PATCH/DELETE /admin/v1/orgs/{orgId}. */
export function OrgsPage() {
  const list = useListQuery();
  const { offset } = list;
  const orgs = useLoad(() => api<Schema<'OrgListDto'>>('GET', `/admin/v1/orgs${query({ query: list.query, limit: LIMIT, offset })}`), [list.query, offset]);
  const [name, setName] = useState('');
  return (
    <Page title={t('organizations')}>
      <Form
        label={t('createOrganization')}
        submit={t('createOrganization')}
        action={() => api('POST', '/admin/v1/orgs', { name })}
        onDone={() => {
          setName('');
          orgs.reload();
        }}
      >
        <Field label={t('name')} value={name} onInput={setName} required />
      </Form>
      <SearchForm name={t('organizations')} onSearch={list.search} />
      <Loading loaded={orgs}>
        {({ orgs: found, total }) => (
          <>
            <Table
              caption={t('organizations')}
              headings={[t('name'), t('primaryDomain'), t('actions')]}
              empty={emptyOf(list.query, t('emptyOrgs'), t('emptyOrgsNext'))}
            >
              {found.map((org) => (
                <OrgRow key={org.id} org={org} onChange={orgs.reload} />
              ))}
            </Table>
            <Pager offset={offset} limit={LIMIT} total={total} shown={found.length} onChange={list.setOffset} />
          </>
        )}
      </Loading>
    </Page>
  );
}

function OrgRow({ org, onChange }: { org: Org; onChange: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(org.name);
  return (
    <tr>
      <th scope="row">
        <Named name={org.name} id={org.id} href={`/console/orgs/${enc(org.id)}/users`} />
      </th>
      <td>{org.primaryDomain}</td>
      <td>
        {renaming ? (
          <Form label={t('renameOrganization')} submit={t('save')} action={() => api('PATCH', `/admin/v1/orgs/${enc(org.id)}`, { name })} onDone={onChange}>
            <Field label={t('newName')} value={name} onInput={setName} required />
          </Form>
        ) : (
          <button type="button" onClick={() => setRenaming(true)}>
            {t('rename')}
          </button>
        )}
        {/* The instance's own organization cannot be removed (the API answers 409): no control that only fails. */}
        {org.name !== 'default' && (
          <DeleteButton
            action={async () => {
              await api('DELETE', `/admin/v1/orgs/${enc(org.id)}`);
              onChange();
            }}
          />
        )}
      </td>
    </tr>
  );
}
