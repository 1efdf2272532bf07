import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UnitOfWork } from '../../common/database/unit-of-work.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { EventStore } from '../../common/events/event-store.js';
import { newId } from '../../common/ids.js';
import { absoluteUrlProblem } from '../../common/net/configured-target.js';
import { projectsOfOrganization } from '../../users/queries/application-audience.js';
import { deleteExternalResource, externalResourceAt, externalResourcesOf, insertExternalResource } from './external-resources.queries.js';
import type { ExternalResourceRow } from './external-resources.queries.js';

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export interface ExternalResourceInput {
  name: string;
  issuer: string;
  resource: string;
  scopes: string[];
  clientIdAtIssuer: string;
  projectId: string;
}

export interface ExternalResourceView extends ExternalResourceInput {
  id: string;
  createdAt: string;
}

/**
 * An organization's external resources (docs/agents.md, "Enterprise-managed authorization"): what its people may get
 * an ID-JAG for, and who (the people granted in the project). Each change and its event share one transaction.
 */
@Injectable()
export class ExternalResources {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly events: EventStore,
  ) {}

  async add(editorId: string, orgId: string, input: ExternalResourceInput): Promise<ExternalResourceView> {
    const problem = inputProblem(input);
    if (problem) throw DomainError.invalidField(problem.field, problem.message);
    const projects = await projectsOfOrganization(this.dataSource, orgId, [input.projectId]);
    if (!projects.has(input.projectId)) throw DomainError.invalidField('projectId', 'projectId: no such project in this organization');
    const row: ExternalResourceRow = {
      id: newId(),
      orgId,
      projectId: input.projectId,
      name: input.name.trim(),
      issuer: input.issuer,
      resource: input.resource,
      scopes: [...input.scopes],
      clientIdAtIssuer: input.clientIdAtIssuer,
      createdAt: Date.now(),
    };
    await this.uow.run(async (manager) => {
      if (await externalResourceAt(manager, orgId, row.issuer, row.resource)) {
        throw DomainError.alreadyExists('an external resource with this issuer and resource already exists in the organization');
      }
      await insertExternalResource(manager, row);
      await this.events.push(manager, {
        type: 'org.external_resource.added',
        aggregateType: 'org',
        aggregateId: orgId,
        resourceOwner: orgId,
        editorUserId: editorId,
        payload: {
          externalResourceId: row.id,
          name: row.name,
          issuer: row.issuer,
          resource: row.resource,
          scopes: row.scopes,
          clientIdAtIssuer: row.clientIdAtIssuer,
          projectId: row.projectId,
        },
      });
    });
    return viewOf(row);
  }

  async list(orgId: string): Promise<ExternalResourceView[]> {
    return (await externalResourcesOf(this.uow.manager, orgId)).map(viewOf);
  }

  async remove(editorId: string, orgId: string, id: string): Promise<void> {
    await this.uow.run(async (manager) => {
      if (!(await deleteExternalResource(manager, orgId, id))) throw DomainError.notFound('external resource');
      await this.events.push(manager, {
        type: 'org.external_resource.removed',
        aggregateType: 'org',
        aggregateId: orgId,
        resourceOwner: orgId,
        editorUserId: editorId,
        payload: { externalResourceId: id },
      });
    });
  }

  /** The organization's external resource at this authorization server with this resource indicator (the ID-JAG's target). */
  find(orgId: string, issuer: string, resource: string): Promise<ExternalResourceRow | undefined> {
    return externalResourceAt(this.uow.manager, orgId, issuer, resource);
  }
}

function viewOf(row: ExternalResourceRow): ExternalResourceView {
  return {
    id: row.id,
    name: row.name,
    issuer: row.issuer,
    resource: row.resource,
    scopes: row.scopes,
    clientIdAtIssuer: row.clientIdAtIssuer,
    projectId: row.projectId,
    createdAt: new Date(row.createdAt).toISOString(),
  };
}

function inputProblem(input: ExternalResourceInput): { field: string; message: string } | undefined {
  const issuer = absoluteUrlProblem(input.issuer);
  if (issuer) return { field: 'issuer', message: `issuer ${issuer}` };
  const resource = absoluteUrlProblem(input.resource);
  if (resource) return { field: 'resource', message: `resource ${resource}` };
  const index = input.scopes.findIndex((s) => !SCOPE_TOKEN.test(s));
  if (index >= 0) return { field: `scopes[${index}]`, message: `scopes[${index}] is not a scope-token (RFC 6749 §3.3)` };
  if (new Set(input.scopes).size !== input.scopes.length) return { field: 'scopes', message: 'scopes: each scope at most once' };
  return undefined;
}
