import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import type { Page, Paged } from '../../database/page.js';
import { DEFAULT_PAGE } from '../../database/page.js';
import { textContains } from '../../database/name-search.js';

/** `?limit=&offset=` of the read routes (docs/product-rules.md, "API": `limit` ≤ 1000); other query parameters are refused. */
export class ListPageQueryDto {
  @ApiPropertyOptional({ default: DEFAULT_PAGE.limit, minimum: 1, maximum: 1000 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ default: 0, minimum: 0 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(2 ** 31 - 1)
  offset?: number;
}

/** `?query=` besides the page: the lists people look for by name (organizations, projects, applications, groups, members, grants, roles, webhooks, identity providers, domains, directories, audit streams, provisioning targets, external resources, agents). */
export class ListSearchQueryDto extends ListPageQueryDto {
  @ApiPropertyOptional({ description: 'matched case-insensitively as a substring of the name', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Matches(/^[^\u0000-\u001f]*$/, { message: 'query must not contain control characters' })
  query?: string;
}

export function pageOf(query: ListPageQueryDto): Page {
  return { limit: query.limit ?? DEFAULT_PAGE.limit, offset: query.offset ?? DEFAULT_PAGE.offset };
}

/**
 * The page `query` asks for of a list that is read whole (a handful of signing keys, an organization's webhooks or
 * identity providers, a user's sessions), with the total of the list: the same paging as every other list.
 */
export function pageOfList<T>(items: T[], query: ListPageQueryDto): Paged<T> {
  const { limit, offset } = pageOf(query);
  return { items: items.slice(offset, offset + limit), total: items.length };
}

/**
 * A list read whole, narrowed by `?query=` (a substring of any of an item's texts, by the service's one case rule)
 * before it is paged: `total` counts the matches, as the lists searched in SQL do.
 */
export function searchedList<T>(items: T[], query: ListSearchQueryDto, textsOf: (item: T) => (string | null | undefined)[]): Paged<T> {
  const wanted = query.query;
  const found = wanted ? items.filter((item) => textsOf(item).some((text) => typeof text === 'string' && textContains(text, wanted))) : items;
  return pageOfList(found, query);
}
