import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { DeleteButton, Field, Form, Named, Page, SearchedTable, useSearchedList } from '../components';
import { t } from '../i18n';

export type Org = Schema<'OrgDto'>;

const LIMIT = 50;

/** Organizations (IAM_OWNER): GET/POST /admin/v1/orgs, PATCH/DELETE /admin/v1/orgs/{orgId}. */
export function OrgsPage() {
  const orgs = useSearchedList(LIMIT, (page) => api<Schema<'OrgListDto'>>('GET', `/admin/v1/orgs${query(page)}`), []);
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
      <SearchedTable
        name={t('organizations')}
        list={orgs}
        items={(page) => ({ found: page.orgs, total: page.total })}
        headings={[t('name'), t('primaryDomain'), t('actions')]}
        empty={[t('emptyOrgs'), t('emptyOrgsNext')]}
        rows={(found) => found.map((org) => <OrgRow key={org.id} org={org} onChange={orgs.reload} />)}
      />
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
