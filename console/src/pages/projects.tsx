import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { DeleteButton, Field, Form, Link, Loading, Page, Pager, Table, useLoad } from '../components';
import { t } from '../i18n';

type Project = Schema<'ProjectDto'>;

const LIMIT = 50;

/** Projects of an organization (ORG_OWNER): list, create, rename, delete (a project with applications: 409). */
export function ProjectsPage({ orgId }: { orgId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/projects`;
  const [offset, setOffset] = useState(0);
  const projects = useLoad(() => api<Schema<'ProjectListDto'>>('GET', `${base}${query({ limit: LIMIT, offset })}`), [base, offset]);
  const [name, setName] = useState('');
  return (
    <Page title={t('projects')}>
      <Form
        label={t('createProject')}
        submit={t('createProject')}
        action={() => api('POST', base, { name })}
        onDone={() => {
          setName('');
          projects.reload();
        }}
      >
        <Field label={t('name')} value={name} onInput={setName} required />
      </Form>
      <Loading loaded={projects}>
        {({ projects: list, total }) => (
          <>
            <Table caption={t('projects')} headings={[t('name'), t('id'), t('actions')]}>
              {list.map((p) => (
                <ProjectRow key={p.id} orgId={orgId} project={p} onChange={projects.reload} />
              ))}
            </Table>
            <Pager offset={offset} limit={LIMIT} total={total} shown={list.length} onChange={setOffset} />
          </>
        )}
      </Loading>
    </Page>
  );
}

function ProjectRow({ orgId, project, onChange }: { orgId: string; project: Project; onChange: () => void }) {
  const path = `/management/v1/orgs/${enc(orgId)}/projects/${enc(project.id)}`;
  const [renaming, setRenaming] = useState(false);
  const [name, setName] = useState(project.name);
  return (
    <tr>
      <th scope="row">
        <Link href={`/console/orgs/${enc(orgId)}/projects/${enc(project.id)}`}>{project.name}</Link>
      </th>
      <td class="mono">{project.id}</td>
      <td>
        {renaming ? (
          <Form label={t('renameProject')} submit={t('save')} action={() => api('PATCH', path, { name })} onDone={onChange}>
            <Field label={t('newName')} value={name} onInput={setName} required />
          </Form>
        ) : (
          <button type="button" onClick={() => setRenaming(true)}>
            {t('rename')}
          </button>
        )}
        <DeleteButton
          action={async () => {
            await api('DELETE', path);
            onChange();
          }}
        />
      </td>
    </tr>
  );
}
