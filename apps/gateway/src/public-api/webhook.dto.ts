import { JSONSchema } from 'class-validator-jsonschema';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsISO8601, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PUBLIC_EVENT_TYPES, WEBHOOKS, type PublicEventType } from '#platform/contracts';
import { RFC3339_DATE_TIME } from '../http/query-params';

const VERIFY_TOKEN_ISSUE = 'must be 8-128 printable characters';
const EVENTS_ISSUE = `each must be one of ${PUBLIC_EVENT_TYPES.join(', ')}`;

/**
 * POST /webhooks (spec; D20–D21). The URL's shape is only a string here: the https, port, host and
 * address rules (length included) need DNS or belong with them: the dispatcher's 422 webhook_url_*.
 */
@JSONSchema({
  title: 'CreateWebhookEndpointRequest',
  examples: [{ url: 'https://hooks.example.com/platform', verifyToken: 'my-verify-token-1', events: ['message.received', 'message.status'] }],
})
export class CreateWebhookDto {
  @IsDefined()
  @IsString()
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
  events!: PublicEventType[];
}

/** PATCH /webhooks/{id}: a new url needs verifyToken (it re-verifies). */
@JSONSchema({ title: 'UpdateWebhookEndpointRequest', examples: [{ events: ['message.received', 'message.status', 'consent.updated'] }] })
export class UpdateWebhookDto {
  @IsOptional()
  @IsString()
  url?: string;

  /** Required with a new url: the dispatcher says so (400 on verifyToken), since a DTO rule cannot depend on another field without repeating itself. */
  @IsOptional()
  @IsString()
  @Matches(WEBHOOKS.verifyTokenPattern, { message: VERIFY_TOKEN_ISSUE })
  verifyToken?: string;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(PUBLIC_EVENT_TYPES.length * 2)
  @IsIn(PUBLIC_EVENT_TYPES, { each: true, message: EVENTS_ISSUE })
  events?: PublicEventType[];
}

/** POST /webhooks/{id}/verify (D21b): the token must equal the endpoint's. */
@JSONSchema({ title: 'VerifyWebhookEndpointRequest', examples: [{ verifyToken: 'my-verify-token-1' }] })
export class VerifyWebhookDto {
  @IsDefined()
  @IsString()
  @MaxLength(256)
  verifyToken!: string;
}

const SINCE_ISSUE = 'must be an RFC 3339 date-time with an offset, like 2026-10-14T09:30:00Z';

/**
 * POST /webhooks/{id}/recover (ADR 0224): the shape of `since` only; that it is at most 7 days ago
 * and not in the future is the dispatcher's rule, judged by the platform clock.
 */
@JSONSchema({ title: 'RecoverWebhookEndpointRequest', examples: [{ since: '2026-10-13T09:30:00Z' }] })
export class RecoverWebhookDto {
  // IsISO8601 alone reads as "a date or a date-time"; the pattern asks for a date-time, and so does the document.
  @JSONSchema(({ oneOf: _dateOrDateTime, ...schema }) => ({ ...schema, format: 'date-time' }))
  @IsDefined()
  @IsString()
  @Matches(RFC3339_DATE_TIME, { message: SINCE_ISSUE })
  @IsISO8601({ strict: true, strictSeparator: true }, { message: SINCE_ISSUE })
  since!: string;
}
