import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SamlNameIdFormat } from '../../users/entities/saml-application.entity.js';
import { NAME_ID_FORMATS } from '../idp-metadata.js';
import { nameIdFormatFor } from './name-id-policy.js';

const KERBEROS = 'urn:oasis:names:tc:SAML:2.0:nameid-format:kerberos';

describe('nameIdFormatFor (docs/saml.md, "NameID")', () => {
  // Rows: the application's setting; columns: no policy, unspecified, persistent, transient, emailAddress, another format.
  const table: Record<SamlNameIdFormat, (SamlNameIdFormat | undefined)[]> = {
    persistent: ['persistent', 'persistent', 'persistent', 'transient', undefined, undefined],
    transient: ['transient', 'transient', undefined, 'transient', undefined, undefined],
    emailAddress: ['emailAddress', 'emailAddress', 'persistent', 'transient', 'emailAddress', undefined],
    unspecified: ['unspecified', 'unspecified', 'persistent', 'transient', undefined, undefined],
  };
  const requests = [null, NAME_ID_FORMATS.unspecified, NAME_ID_FORMATS.persistent, NAME_ID_FORMATS.transient, NAME_ID_FORMATS.emailAddress, KERBEROS];
  for (const [configured, answers] of Object.entries(table) as [SamlNameIdFormat, (SamlNameIdFormat | undefined)[]][]) {
    it(`an application set to ${configured}`, () => {
      assert.deepEqual(
        requests.map((requested) => nameIdFormatFor(configured, requested)),
        answers,
      );
    });
  }

  it('every application gives transient, the format that discloses least', () => {
    for (const configured of Object.keys(table) as SamlNameIdFormat[]) assert.equal(nameIdFormatFor(configured, NAME_ID_FORMATS.transient), 'transient');
  });
});
