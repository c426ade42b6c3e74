import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PUBLIC_EVENT_TYPES, WEBHOOKS } from '@platform/contracts';

const VERIFY_TOKEN_ISSUE = 'must be 8-128 printable characters';
const EVENTS_ISSUE = `each must be one of ${PUBLIC_EVENT_TYPES.join(', ')}`;

/**
 * POST /webhooks (spec; D20–D21). The URL's shape is only a string here: the https, port, host and
 * address rules need DNS and are the dispatcher's (422 webhook_url_*).
 */
export class CreateWebhookDto {
  @IsDefined()
  @IsString()
  @MaxLength(WEBHOOKS.maxUrlLength)
  url!: string;

  @IsDefined()
  @IsString()
  @Matches(WEBHOOKS.verifyTokenPattern, { message: VERIFY_TOKEN_ISSUE })
  verifyToken!: string;

  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PUBLIC_EVENT_TYPES.length * 2)
  @IsIn(PUBLIC_EVENT_TYPES, { each: true, message: EVENTS_ISSUE })
  events!: string[];
}

/** PATCH /webhooks/{id}: a new url needs verifyToken (it re-verifies). */
export class UpdateWebhookDto {
  @IsOptional()
  @IsString()
  @MaxLength(WEBHOOKS.maxUrlLength)
  url?: string;

  @ValidateIf((o: UpdateWebhookDto) => o.url !== undefined || o.verifyToken !== undefined)
  @IsDefined({ message: 'is required with a new url' })
  @IsString()
  @Matches(WEBHOOKS.verifyTokenPattern, { message: VERIFY_TOKEN_ISSUE })
  verifyToken?: string;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PUBLIC_EVENT_TYPES.length * 2)
  @IsIn(PUBLIC_EVENT_TYPES, { each: true, message: EVENTS_ISSUE })
  events?: string[];
}

/** POST /webhooks/{id}/verify (D21b): the token must equal the endpoint's. */
export class VerifyWebhookDto {
  @IsDefined()
  @IsString()
  @MaxLength(256)
  verifyToken!: string;
}
