import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { settingNames } from './config.js';
import { misspelledVariables } from './misspelled-variables.js';

describe('misspelledVariables', () => {
  const settings = settingNames();

  it('knows every setting the configuration reads, including the ones read without a default', () => {
    for (const name of ['PORT', 'DATABASE_URL', 'MASTER_KEY', 'BOOTSTRAP_ADMIN_PASSWORD', 'SMTP_URL', 'SQLITE_BUSY_TIMEOUT_MS', 'MAIL_POLL_MS'])
      assert.ok(settings.has(name), name);
  });

  it('names the setting a misspelled variable most likely meant', () => {
    assert.deepEqual(misspelledVariables({ DATABSE_URL: 'mysql://db/portcullis' }, settings), [
      'DATABSE_URL is not a setting of Portcullis: did you mean DATABASE_URL? (DATABASE_URL is not set)',
    ]);
    assert.deepEqual(misspelledVariables({ PUBLIC_ULR: 'https://id.example.com', PUBLIC_URL: 'https://id.example.com' }, settings), [
      'PUBLIC_ULR is not a setting of Portcullis: did you mean PUBLIC_URL?',
    ]);
    assert.deepEqual(misspelledVariables({ WORKER: '4' }, settings), ['WORKER is not a setting of Portcullis: did you mean WORKERS? (WORKERS is not set)']);
  });

  it('warns of any PORTCULLIS_ name, since none is a setting', () => {
    const [warning] = misspelledVariables({ PORTCULLIS_LOG_LEVEL: 'debug' }, settings);
    assert.match(warning, /^PORTCULLIS_LOG_LEVEL is not a setting of Portcullis: did you mean LOG_LEVEL\?/);
  });

  it("leaves the environment's own variables and the settings themselves alone", () => {
    const env = {
      PATH: '/usr/bin',
      HOME: '/root',
      HOSTNAME: 'vm',
      PWD: '/',
      TERM: 'xterm',
      NODE_ENV: 'production',
      USER: 'root',
      PORT: '8080',
      CI: 'true',
      LANG: 'C',
    };
    assert.deepEqual(misspelledVariables(env, settings), []);
  });
});
