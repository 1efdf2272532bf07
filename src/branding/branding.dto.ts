import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { LOCALES } from '../texts/locales.js';
import { FONTS } from './branding-document.js';

/**
 * A bound on the data URL's text, above what 256 KB of image bytes take in base64 (4 characters for 3 bytes): the
 * exact limit counts the decoded bytes (branding-logo.ts), whose refusal says so.
 */
const MAX_DATA_URL = 512 * 1024;

/**
 * A branding document (docs/branding.md, "The document"). The shape is checked here; colours, contrast, images,
 * links and texts by checkBranding, each refusal naming its field.
 */
export class BrandingDto {
  @ApiPropertyOptional({ maxLength: 100, description: 'Shown beside the logo, as plain text' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  displayName?: string;

  @ApiPropertyOptional({ description: 'A PNG or WebP image as a data URL: at most 256 KB of image bytes and 1024 px a side; served re-encoded as PNG' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DATA_URL)
  logo?: string;

  @ApiPropertyOptional({ description: 'Like logo' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DATA_URL)
  icon?: string;

  @ApiPropertyOptional({ description: 'Light colours, each #rrggbb: primary, onPrimary, background, surface, text, link (WCAG 2.2 AA contrast checked)' })
  @IsOptional()
  @IsObject()
  colors?: Record<string, string>;

  @ApiPropertyOptional({ description: 'Dark colours (prefers-color-scheme: dark), the same keys' })
  @IsOptional()
  @IsObject()
  dark?: Record<string, string>;

  @ApiPropertyOptional({ enum: FONTS })
  @IsOptional()
  @IsIn(FONTS)
  font?: string;

  @ApiPropertyOptional({ description: 'https links: privacy, terms, support' })
  @IsOptional()
  @IsObject()
  links?: Record<string, string>;

  @ApiPropertyOptional({ description: 'Texts per language and key (GET /admin/v1/branding/text-keys), plain text' })
  @IsOptional()
  @IsObject()
  texts?: Record<string, Record<string, string>>;

  @ApiPropertyOptional({ enum: LOCALES, description: "The language of the organization's pages when nothing else chooses one" })
  @IsOptional()
  @IsIn(LOCALES)
  defaultLanguage?: string;
}

export class TextKeyDto {
  @ApiProperty({ example: 'login.title' })
  key!: string;

  @ApiProperty({ description: 'The English text (ICU MessageFormat)' })
  english!: string;
}

export class TextKeysDto {
  @ApiProperty({ type: [TextKeyDto] })
  keys!: TextKeyDto[];

  @ApiProperty({ enum: LOCALES, isArray: true })
  locales!: string[];
}

export class BrandingPreviewDto {
  @ApiProperty({
    description:
      'A link that shows the sign-in pages with the draft (`?page=login|register|second-factor|error`, `&lang=`); anyone holding it may open it until it expires',
  })
  previewUrl!: string;

  @ApiProperty({ description: 'When the link stops showing the draft (ten minutes)', example: '2026-11-28T15:40:00.000Z' })
  expiresAt!: string;
}
