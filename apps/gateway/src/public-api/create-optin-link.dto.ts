import { JSONSchema } from 'class-validator-jsonschema';
import { IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';
import { OPTIN_LINK_MAX_DAYS, OPTIN_LINK_MIN_DAYS, OPTIN_LINK_REF_PATTERN } from '#platform/contracts';

/** POST /optin-links: both optional (spec, Endpoints; expiresInDays defaults to 30, D16). */
@JSONSchema({ title: 'CreateOptInLinkRequest', examples: [{ ref: 'spring-campaign', expiresInDays: 30 }] })
export class CreateOptInLinkDto {
  /** Echoed in consent.updated when a user opts in through the link. */
  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.ref !== undefined && o.ref !== null)
  @IsString()
  @Matches(OPTIN_LINK_REF_PATTERN, { message: `must match ${OPTIN_LINK_REF_PATTERN.source}` })
  ref?: string | null;

  @JSONSchema({ type: ['integer', 'null'], default: 30 })
  @ValidateIf((o) => o.expiresInDays !== undefined && o.expiresInDays !== null)
  @IsInt()
  @Min(OPTIN_LINK_MIN_DAYS)
  @Max(OPTIN_LINK_MAX_DAYS)
  expiresInDays?: number | null;
}
