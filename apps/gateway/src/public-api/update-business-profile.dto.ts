import { JSONSchema } from 'class-validator-jsonschema';
import { IsString, IsUrl, Length, MaxLength, ValidateIf } from 'class-validator';

/** PATCH /business-profile: all optional; null clears the nullable fields (spec, Endpoints). */
@JSONSchema({
  title: 'UpdateBusinessProfileRequest',
  examples: [{ displayName: 'Acme Store', about: 'Order updates and support.', websiteUrl: 'https://acme.example.com', category: null }],
})
export class UpdateBusinessProfileDto {
  /** 2-60 characters; cannot be cleared. */
  @ValidateIf((o) => o.displayName !== undefined)
  @IsString()
  @Length(2, 60)
  displayName?: string;

  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.about !== undefined && o.about !== null)
  @IsString()
  @MaxLength(1024)
  about?: string | null;

  /** An absolute http(s) URL; its host becomes `domain` (D17). */
  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.websiteUrl !== undefined && o.websiteUrl !== null)
  @IsString()
  @MaxLength(2048)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: true }, { message: 'must be an absolute http(s) URL' })
  websiteUrl?: string | null;

  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.category !== undefined && o.category !== null)
  @IsString()
  @Length(1, 100)
  category?: string | null;

  /** A ready image from POST /media of at most 5 MB. */
  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.avatarMediaId !== undefined && o.avatarMediaId !== null)
  @IsString()
  @Length(1, 64)
  avatarMediaId?: string | null;
}
