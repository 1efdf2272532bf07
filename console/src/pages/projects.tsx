import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { DeleteButton, Field, Form, Named, Page, SearchedTable, useSearchedList } from '../components';
import { t } from '../i18n';

type Project = Schema<'ProjectDto'>;

const LIMIT = 50;

/** Projects of an organization (ORG_OWNER): list, create, rename, delete (a project with applications: 409). */
export function ProjectsPage({ orgId }: { orgId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/projects`;
  const projects = useSearchedList(LIMIT, (page) => api<Schema<'ProjectListDto'>>('GET', `${base}${query(page)}`), [base]);
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
      <SearchedTable
        name={t('projects')}
        list={projects}
        items={(page) => ({ found: page.projects, total: page.total })}
        headings={[t('name'), t('actions')]}
        empty={[t('emptyProjects'), t('emptyProjectsNext')]}
        rows={(found) => found.map((p) => <ProjectRow key={p.id} orgId={orgId} project={p} onChange={projects.reload} />)}
      />
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
