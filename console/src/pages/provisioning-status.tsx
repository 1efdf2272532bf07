import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import { ActionButton, Link, Loading, Pager, Select, Table, When, useLoad } from '../components';
import { useUserNames } from '../user-names';
import { t } from '../i18n';
import type { MessageKey } from '../i18n';

type ObjectStatus = ProvisionedObject['status'];

type TargetStatus = Schema<'TargetStatusDto'>;

type ProvisionedObject = Schema<'ProvisionedObjectDto'>;

const STATE_TEXT: Record<TargetStatus['state'], MessageKey> = {
  active: 'provStateActive',
  paused: 'provStatePaused',
  auth_failed: 'provStateAuthFailed',
  disabled: 'provStateDisabled',
};
const STATUS_TEXT: Record<ObjectStatus, MessageKey> = {
  provisioned: 'provProvisioned',
  pending: 'provPending',
  failing: 'provFailing',
  conflict: 'provConflict',
};
const STATUSES = Object.keys(STATUS_TEXT) as ObjectStatus[];

/** `GET …/status`: the target's state, how far behind the organization's events it is, and its objects by status. */
export function StatusPanel({ path, tick, onRefresh }: { path: string; tick: number; onRefresh: () => void }) {
  const status = useLoad(() => api<TargetStatus>('GET', `${path}/status`), [path, tick]);
  return (
    <section class="panel" aria-labelledby="status-heading">
      <h2 id="status-heading">{t('provStatus')}</h2>
      <button type="button" onClick={onRefresh}>
        {t('provRefresh')}
      </button>
      <Loading loaded={status}>
        {(s) => (
          <dl class="facts" data-target-status>
            <dt>{t('state')}</dt>
            <dd>{t(STATE_TEXT[s.state])}</dd>
            <dt>{t('provLag')}</dt>
            <dd>{s.lag}</dd>
            {STATUSES.map((key) => [<dt key={`${key}-t`}>{t(STATUS_TEXT[key])}</dt>, <dd key={`${key}-d`}>{s.objects[key]}</dd>])}
            <dt>{t('provLastSuccess')}</dt>
            <dd>{s.lastSuccessAt ? <When value={s.lastSuccessAt} /> : t('never')}</dd>
            {s.lastError && [<dt key="error-t">{t('provLastError')}</dt>, <dd key="error-d">{s.lastError}</dd>]}
          </dl>
        )}
      </Loading>
    </section>
  );
}

const LIMIT = 50;

/** `GET …/objects?status=`: the users and groups the target knows; a failing or conflicting one can be retried. */
export function ObjectsPanel({ orgId, path, tick, onChange }: { orgId: string; path: string; tick: number; onChange: () => void }) {
  const [status, setStatus] = useState<ObjectStatus | ''>('');
  const [offset, setOffset] = useState(0);
  const objects = useLoad(() => api<Schema<'ObjectListDto'>>('GET', `${path}/objects${query({ status, limit: LIMIT, offset })}`), [path, status, offset, tick]);
  const retry = async (o: ProvisionedObject) => {
    await api('POST', `${path}/objects/${enc(o.kind)}/${enc(o.localId)}/retry`, {});
    onChange();
  };
  return (
    <section class="panel" aria-labelledby="objects-heading">
      <h2 id="objects-heading">{t('provObjects')}</h2>
      <div class="form">
        <Select
          label={t('provShowObjects')}
          value={status}
          onChange={(next) => {
            setStatus(next);
            setOffset(0);
          }}
          options={[{ value: '' as const, label: t('provAllObjects') }, ...STATUSES.map((value) => ({ value, label: t(STATUS_TEXT[value]) }))]}
        />
      </div>
      <Loading loaded={objects}>
        {({ objects: list, total }) =>
          list.length === 0 ? (
            <div class="pc-empty">
              <p>{t('provNoObjects')}</p>
              <p>{t('provNoObjectsNext')}</p>
            </div>
          ) : (
            <>
              <Table
                caption={t('provObjects')}
                headings={[t('name'), t('provKind'), t('status'), t('attempts'), t('lastAnswer'), t('provRemoteId'), t('provPushedAt'), t('actions')]}
                searchable
              >
                <ObjectRows orgId={orgId} list={list} retry={retry} />
              </Table>
              <Pager offset={offset} limit={LIMIT} total={total} shown={list.length} onChange={setOffset} />
            </>
          )
        }
      </Loading>
    </section>
  );
}

// The users' actions; the groups' plan (`groups`) is in the API's answer, not shown here yet.
type PlanPart = Exclude<keyof Plan, 'groups'>;
type Plan = Schema<'ReconcilePlanDto'>;

const PLAN_TEXT: Record<PlanPart, MessageKey> = {
  create: 'provPlanCreate',
  update: 'provPlanUpdate',
  deactivate: 'provPlanDeactivate',
  delete: 'provPlanDelete',
  adopt: 'provPlanAdopt',
};

/**
 * `POST …/reconcile`: `{dryRun: true}` answers the plan (changes nothing); Apply sends `{dryRun: false}`, which
 * plans again and marks the plan's users for the pusher (202 `{runId}`).
 */
export function ReconcilePanel({ path, onApplied }: { path: string; onApplied: () => void }) {
  const [plan, setPlan] = useState<Plan | null>(null);
  const [runId, setRunId] = useState<string | null>(null);
  return (
    <section class="panel" aria-labelledby="reconcile-heading">
      <h2 id="reconcile-heading">{t('provReconcile')}</h2>
      <p>{t('provReconcileIntro')}</p>
      <ActionButton
        label={t('provPlan')}
        action={async () => {
          setRunId(null);
          setPlan((await api<Schema<'ReconcileDryRunDto'>>('POST', `${path}/reconcile`, { dryRun: true })).plan);
        }}
      />
      {plan && (
        <div role="status">
          <Table caption={t('provPlanTitle')} headings={[t('provPlanAction'), t('provPlanCount'), t('userName')]}>
            {(Object.keys(PLAN_TEXT) as PlanPart[]).map((part) => (
              <tr key={part}>
                <th scope="row">{t(PLAN_TEXT[part])}</th>
                <td>{plan[part].count}</td>
                <td>
                  {plan[part].items.map((item) => item.userName).join(', ')}
                  {plan[part].count > plan[part].items.length && ` ${t('provPlanMore', { n: String(plan[part].count - plan[part].items.length) })}`}
                </td>
              </tr>
            ))}
          </Table>
          <ActionButton
            label={t('provApply')}
            action={async () => {
              setRunId((await api<Schema<'ReconcileStartedDto'>>('POST', `${path}/reconcile`, { dryRun: false })).runId);
              setPlan(null);
              onApplied();
            }}
          />
        </div>
      )}
      {runId && (
        <p role="status" class="notice">
          {t('provReconcileStarted', { runId })}
        </p>
      )}
    </section>
  );
}

/** The objects by name — a person as "Ada Lovelace (ada)", a group by its display name — their ids on hover. */
function ObjectRows({ orgId, list, retry }: { orgId: string; list: ProvisionedObject[]; retry: (o: ProvisionedObject) => Promise<void> }) {
  const userNames = useUserNames(
    orgId,
    list.filter((o) => o.kind === 'user').map((o) => o.localId),
  );
  const groups = useLoad(
    () =>
      list.some((o) => o.kind === 'group')
        ? api<Schema<'GroupListDto'>>('GET', `/management/v1/orgs/${enc(orgId)}/groups${query({ limit: 1000 })}`)
        : Promise.resolve(null),
    [orgId, list],
  );
  const nameOf = (o: ProvisionedObject) =>
    o.kind === 'user' ? (userNames.get(o.localId) ?? o.localId) : (groups.data?.groups.find((g) => g.id === o.localId)?.displayName ?? o.localId);
  return (
    <>
      {list.map((o) => (
        <tr key={`${o.kind}:${o.localId}`}>
          <th scope="row" title={o.localId}>
            {o.kind === 'user' ? <Link href={`/console/orgs/${enc(orgId)}/users/${enc(o.localId)}`}>{nameOf(o)}</Link> : nameOf(o)}
          </th>

          <td>{o.kind === 'user' ? t('provKindUser') : t('provKindGroup')}</td>
          <td>{t(STATUS_TEXT[o.status])}</td>
          <td>{o.attempts}</td>
          <td>{[o.lastStatus, o.lastError].filter((v) => v !== undefined && v !== null).join(' ')}</td>
          <td class="mono">{o.remoteId ?? ''}</td>
          <td>
            <When value={o.pushedAt ?? undefined} />
          </td>
          <td>{(o.status === 'failing' || o.status === 'conflict') && <ActionButton label={t('provRetry')} action={() => retry(o)} />}</td>
        </tr>
      ))}
    </>
  );
}
