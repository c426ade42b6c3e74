import { JSONSchema } from 'class-validator-jsonschema';
import { IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

/** POST /optin-links: both optional (spec, Endpoints; expiresInDays defaults to 30, DESIGN D16). */
@JSONSchema({ title: 'CreateOptInLinkRequest', examples: [{ ref: 'spring-campaign', expiresInDays: 30 }] })
export class CreateOptInLinkDto {
  /** Echoed in consent.updated when a user opts in through the link. */
  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.ref !== undefined && o.ref !== null)
  @IsString()
  @Matches(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'must match ^[A-Za-z0-9_.:-]{1,64}$' })
  ref?: string | null;

  @JSONSchema({ type: ['integer', 'null'], default: 30 })
  @ValidateIf((o) => o.expiresInDays !== undefined && o.expiresInDays !== null)
  @IsInt()
  @Min(1)
  @Max(90)
  expiresInDays?: number | null;
}
