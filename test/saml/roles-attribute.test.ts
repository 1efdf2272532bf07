import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { DOMParser } from '@xmldom/xmldom';
import { LoginClient } from '../attack/support/login-client.js';
import { createHuman } from '../oidc/support/oidc-fixtures.js';
import { createCaller, createOrg, unique, useService } from '../support/fixtures.js';
import { authnRequestXml, postedMessage, redirectQuery, SAML } from './support/saml-messages.js';
import { untilAnswered } from './support/saml-sign-in.js';

const ACS = 'http://127.0.0.1:9/saml/acs';

/**
 * The SAML attribute source `roles` (docs/saml.md, "Attributes"): one multi-valued attribute with the user's roles in
 * the SAML application's project — its own grant's and its groups' grants', sorted by code point — SP- and
 * IdP-initiated; none of another project's.
 */
describe('SAML IdP: the roles attribute source', () => {
  const svc = useService();
  let orgId: string;
  let owner: { token: string };
  let projectId: string;
  let loginName: string;

  const management = async (method: string, path: string, body?: unknown) => {
    const res = await svc.api(method, `/management/v1/orgs/${orgId}${path}`, { token: owner.token, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };

  before(async () => {
    const org = await createOrg(svc);
    orgId = org.id;
    owner = await createCaller(svc, orgId, { org: ['ORG_OWNER'] });
    projectId = (await management('POST', '/projects', { name: unique('saml') })).id;
    const user = await createHuman(svc, orgId);
    loginName = `${user.userName}@${org.primaryDomain}`;
    for (const key of ['reader', 'Admin', 'editor']) await management('POST', `/projects/${projectId}/roles`, { key });
    const groupId = (await management('POST', '/groups', { displayName: unique('Editors') })).id;
    await management('PUT', `/groups/${groupId}/members/${user.userId}`);
    await management('POST', `/projects/${projectId}/grants`, { userId: user.userId, roles: ['reader', 'Admin'] });
    await management('POST', `/projects/${projectId}/grants`, { groupId, roles: ['editor', 'reader'] });
    // Another project's roles never reach this project's application.
    const other = (await management('POST', '/projects', { name: unique('other') })).id;
    await management('POST', `/projects/${other}/roles`, { key: 'elsewhere' });
    await management('POST', `/projects/${other}/grants`, { userId: user.userId, roles: ['elsewhere'] });
  });

  async function createSamlApp(fields: Record<string, unknown> = {}): Promise<string> {
    const entityId = `https://${unique('sp')}.example.com/saml`;
    await management('POST', `/projects/${projectId}/apps/saml`, { name: 'SP', entityId, acsUrls: [ACS], ...fields });
    return entityId;
  }

  function attributesOf(xml: string): Record<string, (string | null)[]> {
    const doc = new DOMParser().parseFromString(xml, 'text/xml') as unknown as Document;
    return Object.fromEntries(
      Array.from(doc.getElementsByTagNameNS(SAML, 'Attribute')).map((a) => [
        a.getAttribute('Name'),
        Array.from(a.getElementsByTagNameNS(SAML, 'AttributeValue')).map((v) => v.textContent),
      ]),
    );
  }

  it('SP-initiated: the attribute lists the union of the grants in the application project, by code point', async () => {
    const entityId = await createSamlApp({ attributes: [{ name: 'roles', from: 'roles' }] });
    const { xml } = authnRequestXml({ issuer: entityId, destination: `${svc.config.publicUrl}/saml/v2/${orgId}/sso`, acsUrl: ACS });
    const browser = new LoginClient(svc.url);
    const first = await browser.get(`/saml/v2/${orgId}/sso?${redirectQuery(xml, {})}`);
    const page = await untilAnswered(browser, first, loginName);
    assert.equal(page.status, 200, page.text.slice(0, 400));
    assert.deepEqual(attributesOf(postedMessage(page.text).xml).roles, ['Admin', 'editor', 'reader']);
  });

  it('IdP-initiated: the same attribute; an application without the mapping gets no roles attribute', async () => {
    const entityId = await createSamlApp({ allowIdpInitiated: true, attributes: [{ name: 'urn:example:appRoles', from: 'roles', nameFormat: 'uri' }] });
    const page = await untilAnswered(
      new LoginClient(svc.url),
      await new LoginClient(svc.url).get(`/saml/v2/${orgId}/init?sp=${encodeURIComponent(entityId)}`),
      loginName,
    );
    assert.deepEqual(attributesOf(postedMessage(page.text).xml)['urn:example:appRoles'], ['Admin', 'editor', 'reader']);

    const plain = await createSamlApp({ allowIdpInitiated: true, attributes: [{ name: 'mail', from: 'email' }] });
    const other = await untilAnswered(
      new LoginClient(svc.url),
      await new LoginClient(svc.url).get(`/saml/v2/${orgId}/init?sp=${encodeURIComponent(plain)}`),
      loginName,
    );
    const attributes = attributesOf(postedMessage(other.text).xml);
    assert.ok(attributes.mail);
    assert.equal(Object.values(attributes).flat().includes('Admin'), false);
  });
});
