import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { PASSWORD, createHuman, createProject } from './support/oidc-fixtures.js';
import { agentTokenRequest, createFilesResource, registerAgent } from './support/agent-clients.js';
import type { AgentClient } from './support/agent-clients.js';
import { authorize, callbackParams, launchBrowser, newPage, startRelyingParty, submitLogin } from './support/browser.js';
import type { RelyingParty } from './support/browser.js';
import { useService } from '../support/fixtures.js';

/** docs/agents.md, "Consent and connected agents": a person clicks Allow or Deny in Chromium, in English and German. */
describe('the consent page in a browser', () => {
  const svc = useService();
  let browser: Browser;
  let rp: RelyingParty;
  let agent: AgentClient;
  let resourceUri: string;
  let loginName: string;

  before(async () => {
    browser = await launchBrowser();
    rp = await startRelyingParty();
    const project = await createProject(svc);
    resourceUri = await createFilesResource(svc, project);
    agent = await registerAgent(svc, project.orgId, `${rp.url}/cb`);
    const user = await createHuman(svc, project.orgId);
    loginName = `${user.userName}@${project.primaryDomain}`;
  });

  after(async () => {
    await browser?.close();
    await rp?.close();
  });

  const request = (verifier: string) =>
    `${svc.url}/oauth/v2/authorize?${new URLSearchParams({
      client_id: agent.clientId,
      redirect_uri: `${rp.url}/cb`,
      response_type: 'code',
      scope: 'openid files:read',
      resource: resourceUri,
      state: 'st',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })}`;

  async function accessible(page: Page): Promise<void> {
    const results = await new AxeBuilder({ page }).analyze();
    const grave = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(
      grave.map((v) => v.id),
      [],
      'axe-core: no serious or critical violation',
    );
  }

  it('German: Deny answers access_denied to the client', async () => {
    const { context, page } = await newPage(browser, { locale: 'de-DE' });
    try {
      const cb = await authorize(rp, page, request(randomBytes(32).toString('base64url')), async (p) => {
        await submitLogin(p, loginName, PASSWORD);
        await p.waitForSelector('[data-consent-deny]');
        assert.match((await p.textContent('main')) ?? '', /nicht überprüfte Registrierung/);
        assert.match((await p.textContent('main')) ?? '', /eine App auf diesem Computer/);
        await accessible(p);
        await p.click('[data-consent-deny]');
      });
      assert.equal(callbackParams(cb).get('error'), 'access_denied');
    } finally {
      await context.close();
    }
  });

  it('English: Allow issues the code, which redeems for a token of the resource', async () => {
    const { context, page } = await newPage(browser);
    try {
      const verifier = randomBytes(32).toString('base64url');
      const cb = await authorize(rp, page, request(verifier), async (p) => {
        await submitLogin(p, loginName, PASSWORD);
        await p.waitForSelector('[data-consent-allow]');
        const text = (await p.textContent('main')) ?? '';
        assert.match(text, /unverified registration/);
        assert.match(text, /Files MCP/);
        assert.match(text, /Read your files/);
        await accessible(p);
        await p.click('[data-consent-allow]');
      });
      const code = callbackParams(cb).get('code');
      assert.ok(code, 'a code');
      const res = await agentTokenRequest(svc, agent, { grant_type: 'authorization_code', code, redirect_uri: `${rp.url}/cb`, code_verifier: verifier });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(String(res.body.scope).split(' ').sort(), ['files:read', 'openid']);
    } finally {
      await context.close();
    }
  });
});
