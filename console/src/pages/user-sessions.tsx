import { api, enc } from '../api';
import type { Schema } from '../api';
import { ActionButton, Loading, Table, When, useLoad } from '../components';
import { t } from '../i18n';

/** A person's sign-in sessions; ending one signs that browser out and revokes its access tokens. */
export function Sessions({ base }: { base: string }) {
  const sessions = useLoad(() => api<Schema<'UserSessionListDto'>>('GET', `${base}/sessions`), [base]);
  return (
    <section class="panel" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">{t('sessions')}</h2>
      <Loading loaded={sessions}>
        {({ sessions: list }) =>
          list.length === 0 ? (
            <p>{t('noSessions')}</p>
          ) : (
            <Table caption={t('sessions')} headings={[t('signedInAt'), t('lastUsedAt'), t('applications'), t('methods'), t('actions')]} searchable>
              {list.map((s) => (
                <tr key={s.sessionId} data-session={s.sessionId}>
                  <th scope="row">
                    <When value={s.signedInAt} />
                  </th>
                  <td>
                    <When value={s.lastUsedAt} />
                  </td>
                  <td>{s.applications.join(', ')}</td>
                  <td>{s.amr.join(', ')}</td>
                  <td>
                    <ActionButton
                      label={t('endSession')}
                      action={async () => {
                        await api('DELETE', `${base}/sessions/${enc(s.sessionId)}`);
                        sessions.reload();
                      }}
                    />
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loading>
    </section>
  );
}
