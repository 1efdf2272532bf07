import { useState } from 'preact/hooks';
import { api, enc } from '../api';
import type { Schema } from '../api';
import { ActionButton, DeleteButton, Form, Link, Loading, Page, useLoad } from '../components';
import { t } from '../i18n';
import { navigate } from '../router';
import { targetsApi, targetsPage } from './provisioning';
import { useTargetFields } from './provisioning-form';
import type { Target } from './provisioning-form';
import { ObjectsPanel, ReconcilePanel, StatusPanel } from './provisioning-status';

type TestResult = Schema<'TargetTestDto'>;

/**
 * One provisioning target (docs/provisioning.md): test its connection, read its status and objects (retry a failing
 * one), plan and apply a reconcile, change its settings, remove it. `tick` reloads the status and objects after an
 * action that changes them.
 */
export function ProvisioningTargetPage({ orgId, targetId }: { orgId: string; targetId: string }) {
  const path = `${targetsApi(orgId)}/${enc(targetId)}`;
  const target = useLoad(() => api<Target>('GET', path), [path]);
  const [tick, setTick] = useState(0);
  const refresh = () => setTick((n) => n + 1);
  return (
    <Loading loaded={target}>
      {(tg) => (
        <Page title={tg.name}>
          <p>
            <Link href={targetsPage(orgId)}>{t('provAllTargets')}</Link>
          </p>
          <p class="mono">{tg.baseUrl}</p>
          <TestConnection path={path} />
          <StatusPanel path={path} tick={tick} onRefresh={refresh} />
          <ObjectsPanel orgId={orgId} path={path} tick={tick} onChange={refresh} />
          <ReconcilePanel path={path} onApplied={refresh} />
          <section class="panel" aria-labelledby="target-settings">
            <h2 id="target-settings">{t('provSettings')}</h2>
            {/* Keyed by changedAt: after a save the form starts again from what is stored (a typed secret is not sent twice). */}
            <EditTarget
              key={tg.changedAt}
              orgId={orgId}
              target={tg}
              path={path}
              onDone={() => {
                target.reload();
                refresh();
              }}
            />
            <p>{t('provDeleteHint')}</p>
            <DeleteButton
              action={async () => {
                await api('DELETE', path);
                navigate(targetsPage(orgId));
              }}
            />
          </section>
        </Page>
      )}
    </Loading>
  );
}

function EditTarget({ orgId, target, path, onDone }: { orgId: string; target: Target; path: string; onDone: () => void }) {
  const form = useTargetFields(orgId, target);
  return (
    <Form label={t('provEditTarget', { name: target.name })} submit={t('save')} action={() => api('PATCH', path, form.patchBody())} onDone={onDone}>
      {form.fields}
    </Form>
  );
}

/** `POST …/test`: authenticates and reads the target's ServiceProviderConfig; a failure is the answer's `error`. */
function TestConnection({ path }: { path: string }) {
  const [result, setResult] = useState<TestResult | null>(null);
  const yesNo = (value: boolean) => (value ? t('yes') : t('no'));
  return (
    <section class="panel" aria-labelledby="test-heading">
      <h2 id="test-heading">{t('provTestResult')}</h2>
      <ActionButton
        label={t('provTestConnection')}
        action={async () => {
          setResult(null);
          setResult(await api<TestResult>('POST', `${path}/test`, {}));
        }}
      />
      {result && (
        <div role="status">
          <p class={result.ok ? 'notice' : 'error'}>{result.ok ? t('provTestOk') : t('provTestFailed', { error: result.error ?? '' })}</p>
          <dl class="facts">
            <dt>{t('provSupportsPatch')}</dt>
            <dd>{yesNo(result.patch)}</dd>
            <dt>{t('provSupportsFilter')}</dt>
            <dd>{yesNo(result.filter)}</dd>
            <dt>{t('provSupportsBulk')}</dt>
            <dd>{yesNo(result.bulk)}</dd>
          </dl>
        </div>
      )}
    </section>
  );
}
