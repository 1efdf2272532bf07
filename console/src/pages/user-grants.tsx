import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { Loading, Named, Table, useLoad } from '../components';
import { t } from '../i18n';

/**
 * A user's effective grants (GET …/users/{userId}/grants, ORG_USER_MANAGER; docs/application-access.md): one row per
 * grant that reaches the user, its own or a group's, with the project's name where the caller may read projects.
 */
export function EffectiveGrants({ orgId, base }: { orgId: string; base: string }) {
  const org = `/management/v1/orgs/${enc(orgId)}`;
  const grants = useLoad(() => api<Schema<'EffectiveGrantListDto'>>('GET', `${base}/grants`), [base]);
  // Names only: a caller who may not list projects or groups still sees the ids.
  const names = useLoad(async () => {
    const [projects, groups] = await Promise.all([
      api<Schema<'ProjectListDto'>>('GET', `${org}/projects${query({ limit: 1000 })}`).catch(() => ({ projects: [] })),
      api<Schema<'GroupListDto'>>('GET', `${org}/groups${query({ limit: 1000 })}`).catch(() => ({ groups: [] })),
    ]);
    return { projects: new Map(projects.projects.map((p) => [p.id, p.name])), groups: new Map(groups.groups.map((g) => [g.id, g.displayName])) };
  }, [org]);
  return (
    <section class="panel" aria-labelledby="grants-heading">
      <h2 id="grants-heading">{t('effectiveGrants')}</h2>
      <Loading loaded={grants}>
        {({ grants: list }) => (
          <Table caption={t('effectiveGrants')} headings={[t('project'), t('roles'), t('via')]} empty={[t('noGrants'), t('noGrantsNext')]} searchable>
            {list.map((g) => (
              <tr key={g.grantId} data-effective-grant={g.grantId}>
                <th scope="row">
                  <Named name={names.data?.projects.get(g.projectId)} id={g.projectId} href={`/console/orgs/${enc(orgId)}/projects/${enc(g.projectId)}`} />
                </th>
                <td>{g.roles.length ? g.roles.join(', ') : <span class="muted">{t('noRoles')}</span>}</td>
                <td>{g.via === 'group' ? t('viaGroup', { name: names.data?.groups.get(g.groupId ?? '') ?? g.groupId ?? '' }) : t('viaUser')}</td>
              </tr>
            ))}
          </Table>
        )}
      </Loading>
    </section>
  );
}
