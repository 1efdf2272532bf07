import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import type { Page, Paged } from '../../database/page.js';
import { DEFAULT_PAGE } from '../../database/page.js';

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
