import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { DeleteButton, Field, Form, Loading, Named, Page, Pager, SearchForm, Table, emptyOf, useListQuery, useLoad } from '../components';
import { t } from '../i18n';

type Project = Schema<'ProjectDto'>;

const LIMIT = 50;

/** Projects of an organization (ORG_OWNER): list, create, rename, delete (a project with applications: 409). */
export function ProjectsPage({ orgId }: { orgId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/projects`;
  const list = useListQuery();
  const { offset } = list;
  const projects = useLoad(
    () => api<Schema<'ProjectListDto'>>('GET', `${base}${query({ query: list.query, limit: LIMIT, offset })}`),
    [base, list.query, offset],
  );
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
      <SearchForm name={t('projects')} onSearch={list.search} />
      <Loading loaded={projects}>
        {({ projects: found, total }) => (
          <>
            <Table caption={t('projects')} headings={[t('name'), t('actions')]} empty={emptyOf(list.query, t('emptyProjects'), t('emptyProjectsNext'))}>
              {found.map((p) => (
                <ProjectRow key={p.id} orgId={orgId} project={p} onChange={projects.reload} />
              ))}
            </Table>
            <Pager offset={offset} limit={LIMIT} total={total} shown={found.length} onChange={list.setOffset} />
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
        <Named name={project.name} id={project.id} href={`/console/orgs/${enc(orgId)}/projects/${enc(project.id)}`} />
      </th>
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
