import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { Bounded } from '../../common/http/validation/bounded.decorator.js';
import { APPLICATION_ACCESS_MODES } from '../../users/entities/application.entity.js';
import type { ApplicationAccessMode } from '../../users/entities/application.entity.js';

/**
 * Who may enter an OIDC or SAML application (or use an API application's resource), and where a person starts using
 * it (docs/product-rules.md, "Application access").
 */
export class AppEntryFieldsDto {
  @ApiPropertyOptional({
    enum: APPLICATION_ACCESS_MODES,
    default: 'everyone',
    description:
      "`granted` admits only users with a grant in the application's project (their own or a group's); on an API application, to connecting an agent to its resource and to ID-JAG redemption tokens for it",
  })
  @IsOptional()
  @IsIn(APPLICATION_ACCESS_MODES, { message: 'access must be "everyone" or "granted"' })
  access?: ApplicationAccessMode;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 2000,
    description: "OIDC and SAML: an absolute http(s) URL listed on the person's page of applications; null: not listed",
  })
  @IsOptional()
  @IsString()
  @Bounded(2000)
  homeUrl?: string | null;
}
