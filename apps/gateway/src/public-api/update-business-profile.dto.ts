import { JSONSchema } from 'class-validator-jsonschema';
import { IsString, IsUrl, Length, MaxLength, ValidateIf } from 'class-validator';
import { BUSINESS_PROFILE_LIMITS as LIMITS, WEBSITE_URL_OPTIONS } from '#platform/contracts';

/** PATCH /business-profile: all optional; null clears the nullable fields (spec, Endpoints; limits in libs/contracts business-profile.ts). */
@JSONSchema({
  title: 'UpdateBusinessProfileRequest',
  examples: [{ displayName: 'Acme Store', about: 'Order updates and support.', websiteUrl: 'https://acme.example.com', category: null }],
})
export class UpdateBusinessProfileDto {
  /** 2-60 characters; cannot be cleared. */
  @ValidateIf((o) => o.displayName !== undefined)
  @IsString()
  @Length(LIMITS.displayName.min, LIMITS.displayName.max)
  displayName?: string;

  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.about !== undefined && o.about !== null)
  @IsString()
  @MaxLength(LIMITS.aboutMax)
  about?: string | null;

  /** An absolute http(s) URL; its host becomes `domain` (D17). */
  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.websiteUrl !== undefined && o.websiteUrl !== null)
  @IsString()
  @MaxLength(LIMITS.websiteUrlMax)
  @IsUrl(WEBSITE_URL_OPTIONS, { message: 'must be an absolute http(s) URL' })
  websiteUrl?: string | null;

  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.category !== undefined && o.category !== null)
  @IsString()
  @Length(LIMITS.category.min, LIMITS.category.max)
  category?: string | null;

  /** A ready image from POST /media of at most 5 MB. */
  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.avatarMediaId !== undefined && o.avatarMediaId !== null)
  @IsString()
  @Length(1, 64)
  avatarMediaId?: string | null;
}
