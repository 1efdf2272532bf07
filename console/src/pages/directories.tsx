import { useState } from 'preact/hooks';
import { api, enc, query } from '../api';
import type { Schema } from '../api';
import {
  ActionButton,
  Checkbox,
  DeleteButton,
  Field,
  Form,
  Loading,
  Notice,
  Page,
  SearchedTable,
  Select,
  Table,
  TextArea,
  useLoad,
  useSearchedList,
} from '../components';
import { t } from '../i18n';

const LIMIT = 50;
type DirectoryType = 'ldap' | 'active-directory';
type Directory = Schema<'DirectoryViewDto'>;

/**
 * An organization's LDAP and Active Directory directories (docs/directories.md; ORG_OWNER): adding one, testing its
 * connection, syncing it now, and its last syncs with what could not be synced. The bind password is sent, never shown.
 */
export function DirectoriesPage({ orgId }: { orgId: string }) {
  const base = `/management/v1/orgs/${enc(orgId)}/directories`;
  // Searched and paged by the server (`?query=` matches the name and the URL).
  const directories = useSearchedList(LIMIT, (page) => api<Schema<'DirectoryListDto'>>('GET', `${base}${query(page)}`), [base]);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <Page title={t('directories')}>
      <SearchedTable
        name={t('directories')}
        list={directories}
        items={(page) => ({ found: page.directories, total: page.total })}
        headings={[t('name'), t('type'), t('url'), t('actions')]}
        empty={[t('emptyDirectories'), t('emptyDirectoriesNext')]}
        rows={(found) =>
          found.map((directory) => (
            <DirectoryRow
              key={directory.id}
              path={`${base}/${enc(directory.id)}`}
              directory={directory}
              open={open === directory.id}
              onToggle={() => setOpen(open === directory.id ? null : directory.id)}
              onRemoved={directories.reload}
            />
          ))
        }
      />
      {open && <LastSyncs path={`${base}/${enc(open)}/syncs`} />}
      <h2>{t('addDirectory')}</h2>
      <AddDirectory base={base} onAdded={directories.reload} />
    </Page>
  );
}

function DirectoryRow({
  path,
  directory,
  open,
  onToggle,
  onRemoved,
}: {
  path: string;
  directory: Directory;
  open: boolean;
  onToggle: () => void;
  onRemoved: () => void;
}) {
  const [said, setSaid] = useState<string | null>(null);
  const test = async () => {
    const result = await api<Schema<'DirectoryTestResultDto'>>('POST', `${path}/test`, {});
    const found = result.users.map((user) => user.userName).join(', ');
    const problems = result.problems.join(' ');
    setSaid(
      !result.connected
        ? t('directoryTestFailed', { problems })
        : problems
          ? t('directoryTestProblems', { problems })
          : t(result.tls ? 'directoryTestOkTls' : 'directoryTestOk', { users: found || t('directoryTestNoUsers') }),
    );
  };
  const sync = async () => {
    await api<Schema<'SyncStartedDto'>>('POST', `${path}/sync`, {});
    setSaid(t('directorySyncStarted'));
    if (!open) onToggle();
  };
  return (
    <tr>
      <th scope="row">{directory.name}</th>
      <td>{directory.type === 'active-directory' ? t('directoryAd') : t('directoryLdap')}</td>
      <td class="mono">{directory.url}</td>
      <td>
        <ActionButton label={t('provTestConnection')} action={test} />
        <ActionButton label={t('directorySyncNow')} action={sync} />
        <button type="button" aria-expanded={open} onClick={onToggle}>
          {t('directoryLastSyncs')}
        </button>
        <DeleteButton
          action={async () => {
            await api('DELETE', path);
            onRemoved();
          }}
        />
        <Notice text={said} />
      </td>
    </tr>
  );
}

/** The directory's last syncs, newest first, each with its counts and the entries it could not sync. */
function LastSyncs({ path }: { path: string }) {
  const syncs = useLoad(() => api<Schema<'DirectorySyncListDto'>>('GET', `${path}${query({ limit: 10 })}`), [path]);
  return (
    <section>
      <h2>{t('directoryLastSyncs')}</h2>
      <button type="button" onClick={syncs.reload}>
        {t('refresh')}
      </button>
      <Loading loaded={syncs}>
        {({ syncs: found }) => (
          <Table
            caption={t('directoryLastSyncs')}
            headings={[t('directorySyncStartedAt'), t('type'), t('state'), t('directorySyncPeople'), t('directorySyncFailures')]}
            empty={[t('directoryNoSyncs'), t('directoryNoSyncsNext')]}
          >
            {found.map((sync) => (
              <tr key={sync.syncId}>
                <th scope="row">{new Date(sync.startedAt).toLocaleString()}</th>
                <td>{sync.kind === 'full' ? t('directorySyncFull') : t('directorySyncIncremental')}</td>
                <td>
                  {sync.state === 'finished' ? t('directorySyncFinished') : sync.state === 'failed' ? t('directorySyncFailed') : t('directorySyncRunning')}
                </td>
                <td>{t('directorySyncCounts', countsText(sync.counts))}</td>
                <td>
                  {sync.failures.length === 0 ? (
                    '—'
                  ) : (
                    <ul>
                      {sync.failures.map((failure) => (
                        <li key={failure.dn}>
                          <span class="mono">{failure.dn}</span>: {failure.message}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loading>
    </section>
  );
}

function countsText(counts: Record<string, number>): Record<string, string> {
  return Object.fromEntries(Object.entries(counts).map(([key, n]) => [key, String(n)]));
}

function AddDirectory({ base, onAdded }: { base: string; onAdded: () => void }) {
  const [type, setType] = useState<DirectoryType>('ldap');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [bindDn, setBindDn] = useState('');
  const [bindPassword, setBindPassword] = useState('');
  const [usersDn, setUsersDn] = useState('');
  const [groupsDn, setGroupsDn] = useState('');
  const [ca, setCa] = useState('');
  const [writeBack, setWriteBack] = useState(false);
  const add = async () => {
    await api<Schema<'DirectoryViewDto'>>('POST', base, {
      type,
      name,
      url,
      bindDn,
      bindPassword,
      usersDn,
      ...(groupsDn.trim() ? { groupsDn: groupsDn.trim() } : {}),
      ...(ca.trim() ? { caCertificate: ca.trim() } : {}),
      writeBack,
    });
  };
  return (
    <Form
      label={t('addDirectory')}
      submit={t('addDirectory')}
      action={add}
      onDone={() => {
        for (const clear of [setName, setUrl, setBindDn, setBindPassword, setUsersDn, setGroupsDn, setCa]) clear('');
        setWriteBack(false);
        onAdded();
      }}
    >
      <Select
        label={t('type')}
        value={type}
        onChange={setType}
        options={[
          { value: 'ldap', label: t('directoryLdap') },
          { value: 'active-directory', label: t('directoryAd') },
        ]}
      />
      <Field label={t('name')} value={name} onInput={setName} required />
      <Field label={t('url')} value={url} onInput={setUrl} required placeholder="ldaps://ldap.corp.example:636" hint={t('directoryUrlHint')} />
      <Field label={t('directoryBindDn')} value={bindDn} onInput={setBindDn} required />
      <Field label={t('directoryBindPassword')} type="password" value={bindPassword} onInput={setBindPassword} required autoComplete="new-password" />
      <Field label={t('directoryUsersDn')} value={usersDn} onInput={setUsersDn} required />
      <Field label={t('directoryGroupsDn')} value={groupsDn} onInput={setGroupsDn} />
      <TextArea label={t('directoryCa')} value={ca} onInput={setCa} />
      <Checkbox label={t('directoryWriteBack')} checked={writeBack} onChange={setWriteBack} />
    </Form>
  );
}
