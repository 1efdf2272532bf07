import { createParamDecorator } from '@nestjs/common';
import type { ArgumentMetadata, ExecutionContext, PipeTransform } from '@nestjs/common';
import { createValidationPipe } from '../../common/errors/validation.pipe.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { ImportRequestDto } from './import.dto.js';

/**
 * The import body, validated like every admin body (STYLE §3) but without walking its users: the
 * shared ValidationPipe deep-copies the whole body through class-transformer, which for 100,000 users
 * costs seconds (the import must write ≥ 10,000 users/s: docs/product-rules.md). The envelope is validated by that same pipe with
 * each `humanUsers` array left out, and the arrays are put back untouched for the service to check
 * user by user. The global pipe leaves custom decorators alone (`validateCustomDecorators: false`).
 */
class ImportEnvelopePipe implements PipeTransform<unknown, Promise<ImportRequestDto>> {
  private readonly pipe = createValidationPipe();

  async transform(body: unknown): Promise<ImportRequestDto> {
    const orgs = envelopeOrgs(body);
    const users = orgs?.map((org) => (isObject(org) ? org.humanUsers : undefined));
    const envelope =
      orgs === undefined ? body : { ...(body as object), dataOrgs: { ...(body as { dataOrgs: object }).dataOrgs, orgs: orgs.map(withoutUsers) } };
    const metadata: ArgumentMetadata = { type: 'body', metatype: ImportRequestDto };
    const dto = (await this.pipe.transform(envelope, metadata)) as ImportRequestDto;
    dto.dataOrgs.orgs.forEach((org, i) => {
      const items = users![i];
      if (items === undefined) return;
      if (!Array.isArray(items))
        throw DomainError.invalid(`invalid request: dataOrgs.orgs.${i}.humanUsers must be an array`, [
          { field: `dataOrgs.orgs.${i}.humanUsers`, message: 'humanUsers must be an array' },
        ]);
      org.humanUsers = items;
    });
    return dto;
  }
}

function envelopeOrgs(body: unknown): unknown[] | undefined {
  if (!isObject(body) || !isObject(body.dataOrgs) || !Array.isArray(body.dataOrgs.orgs)) return undefined;
  return body.dataOrgs.orgs;
}

function withoutUsers(org: unknown): unknown {
  if (!isObject(org)) return org;
  const { humanUsers: _users, ...rest } = org;
  return rest;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const RawBody = createParamDecorator((_: unknown, ctx: ExecutionContext): unknown => ctx.switchToHttp().getRequest<{ body?: unknown }>().body);

/** `@ImportBody()`: the request body as a validated ImportRequestDto whose users are still raw JSON. */
export const ImportBody = () => RawBody(undefined, new ImportEnvelopePipe());
