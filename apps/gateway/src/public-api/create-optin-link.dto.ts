import { IsInt, IsString, Matches, Max, Min, ValidateIf } from 'class-validator';

/** POST /optin-links: both optional (spec, Endpoints; expiresInDays defaults to 30, DESIGN D16). */
export class CreateOptInLinkDto {
  /** Echoed in consent.updated when a user opts in through the link. */
  @ValidateIf((o) => o.ref !== undefined && o.ref !== null)
  @IsString()
  @Matches(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'must match ^[A-Za-z0-9_.:-]{1,64}$' })
  ref?: string | null;

  @ValidateIf((o) => o.expiresInDays !== undefined && o.expiresInDays !== null)
  @IsInt()
  @Min(1)
  @Max(90)
  expiresInDays?: number | null;
}
