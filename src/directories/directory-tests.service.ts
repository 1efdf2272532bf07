import { Injectable } from '@nestjs/common';
import type { Client, Entry, SearchOptions } from 'ldapts';
import { DirectoriesService } from './directories.service.js';
import type { DirectoryTarget } from './directories.service.js';
import { DirectoryUnreachable, connectTo, unreachableOf } from './directory-connection.js';
import { personOf, userAttributes } from './directory-entries.js';
import type { DirectoryPerson } from './directory-entries.js';

/** What `POST …/directories/{id}/test` answers (docs/directories.md, "Testing a directory"). */
export interface DirectoryTestResult {
  connected: boolean;
  tls: boolean;
  serverType: 'openldap' | 'active-directory' | 'other' | null;
  users: Omit<DirectoryPerson, 'disabled'>[];
  groups: { dn: string; name: string }[];
  problems: string[];
}

/** The "Microsoft Active Directory" capability in the root DSE ([MS-ADTS] 3.1.1.3.4.3). */
const AD_CAPABILITY = '1.2.840.113556.1.4.800';

/**
 * Tries a directory as the sync will use it: connects (TLS as configured, the allow-list first), binds as the service
 * account, and reads the first five users and groups through the mapping. Every problem is reported, never thrown:
 * the owner is setting the directory up.
 */
@Injectable()
export class DirectoryTests {
  constructor(private readonly directories: DirectoriesService) {}

  async run(orgId: string, directoryId: string): Promise<DirectoryTestResult> {
    const target = await this.directories.target(orgId, directoryId);
    const result: DirectoryTestResult = { connected: false, tls: false, serverType: null, users: [], groups: [], problems: [] };
    let client: Client | undefined;
    try {
      const connection = await connectTo(target.settings, target.allow);
      client = connection.client;
      result.connected = true;
      result.tls = connection.tls;
      result.serverType = await serverTypeOf(client);
      await client.bind(target.settings.bindDn, target.bindPassword).catch((error) => {
        throw new DirectoryUnreachable(`the service account could not bind: ${(error as Error).message}`, 'bind_refused');
      });
      await this.readUsers(client, target, result);
      await this.readGroups(client, target, result);
    } catch (error) {
      result.problems.push(unreachableOf(error).message);
    } finally {
      await client?.unbind().catch(() => undefined);
    }
    return result;
  }

  private async readUsers(client: Client, target: DirectoryTarget, result: DirectoryTestResult): Promise<void> {
    try {
      const searchEntries = await firstPage(client, target.settings.usersDn, {
        scope: 'sub',
        filter: target.settings.userFilter,
        attributes: userAttributes(target.type, target.settings.attributes),
        explicitBufferAttributes: target.type === 'active-directory' ? [target.settings.attributes.externalId] : [],
      });
      for (const entry of searchEntries.slice(0, 5)) {
        const person = personOf(target.type, target.settings.attributes, entry);
        if ('problem' in person) result.problems.push(`${person.dn}: ${person.problem}`);
        else {
          const { disabled: _disabled, ...shown } = person;
          result.users.push(shown);
        }
      }
      if (searchEntries.length === 0) result.problems.push(`no entry under usersDn matches userFilter ${target.settings.userFilter}`);
    } catch (error) {
      result.problems.push(`users: ${(error as Error).message}`);
    }
  }

  private async readGroups(client: Client, target: DirectoryTarget, result: DirectoryTestResult): Promise<void> {
    if (!target.settings.groupsDn) return;
    try {
      const searchEntries = await firstPage(client, target.settings.groupsDn, { scope: 'sub', filter: target.settings.groupFilter, attributes: ['cn'] });
      result.groups = searchEntries.slice(0, 5).map((entry) => ({ dn: entry.dn, name: String([entry.cn].flat()[0] ?? entry.dn) }));
    } catch (error) {
      result.problems.push(`groups: ${(error as Error).message}`);
    }
  }
}

async function serverTypeOf(client: Client): Promise<DirectoryTestResult['serverType']> {
  try {
    const { searchEntries } = await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['objectClass', 'supportedCapabilities'] });
    const root = searchEntries[0] ?? {};
    const classes = [root.objectClass].flat().map(String);
    const capabilities = [root.supportedCapabilities].flat().map(String);
    if (capabilities.includes(AD_CAPABILITY)) return 'active-directory';
    if (classes.includes('OpenLDAProotDSE')) return 'openldap';
    return 'other';
  } catch {
    return null;
  }
}

/** The first five entries: one page of a paged search (RFC 2696), the rest never asked for. */
async function firstPage(client: Client, base: string, options: SearchOptions): Promise<Entry[]> {
  for await (const page of client.searchPaginated(base, { ...options, paged: { pageSize: 5 } })) return page.searchEntries.slice(0, 5);
  return [];
}
