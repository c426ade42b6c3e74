import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsEmail,
  IsIn,
  IsObject,
  IsString,
  Length,
  Matches,
  MaxLength,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  type ValidationArguments,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { APP_USER_ID_PATTERN, SENT_MESSAGE_TYPES, type SentMessageType } from '#platform/contracts';
import { TemplateSendDto } from './template.dto';

/** `to` is exactly one of two shapes (spec, POST /messages). */
@ValidatorConstraint({ name: 'exactlyOneRecipient' })
class ExactlyOneRecipient implements ValidatorConstraintInterface {
  validate(to: unknown): boolean {
    if (to === null || typeof to !== 'object') return true;
    const given = ['appUserId', 'email'].filter((k) => (to as Record<string, unknown>)[k] !== undefined);
    return given.length === 1;
  }
  defaultMessage(): string {
    return 'must have exactly one of appUserId or email';
  }
}

/** A text or template message carries no media. */
@ValidatorConstraint({ name: 'onlyForMediaTypes' })
class OnlyForMediaTypes implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    const type = (args.object as { type?: unknown }).type;
    return type !== 'text' && type !== 'template';
  }
  defaultMessage(): string {
    return 'is only for image, video, audio and file messages';
  }
}

/** A template message's text is rendered from the template; it takes none of its own. */
@ValidatorConstraint({ name: 'notForTemplates' })
class NotForTemplates implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    return (args.object as { type?: unknown }).type !== 'template';
  }
  defaultMessage(): string {
    return 'is not allowed in a template message: its text is rendered from the template';
  }
}

/** `template` goes with type template only. */
@ValidatorConstraint({ name: 'onlyForTemplates' })
class OnlyForTemplates implements ValidatorConstraintInterface {
  validate(_value: unknown, args: ValidationArguments): boolean {
    return (args.object as { type?: unknown }).type === 'template';
  }
  defaultMessage(): string {
    return 'is only for template messages';
  }
}

@JSONSchema({
  title: 'Recipient',
  description: 'Exactly one of appUserId (shape A) or email (shape B).',
  oneOf: [{ required: ['appUserId'] }, { required: ['email'] }],
  examples: [{ appUserId: 'u_7Hq2LxP9sKd3Vb1Nc5Zr8T' }],
})
export class RecipientDto {
  /** Shape A: the user's id within the app. */
  @ValidateIf((o) => o.appUserId !== undefined)
  @IsString()
  @Matches(APP_USER_ID_PATTERN, { message: 'must match ^u_[0-9A-Za-z]{22}$' })
  appUserId?: string;

  /** Shape B: a work email; internal_live apps with a live key, recipients in the app's organization. */
  @ValidateIf((o) => o.email !== undefined)
  @IsString()
  @MaxLength(254)
  @IsEmail({}, { message: 'must be an email address' })
  email?: string;
}

const MEDIA_TYPES = ['image', 'video', 'audio', 'file'];

/** POST /messages body (spec, Endpoints; D11). Unknown properties are refused by the pipeline. */
@JSONSchema({
  title: 'SendMessageRequest',
  description:
    'text is required for type text (an optional caption otherwise; a text message takes no mediaId); mediaId is required for image, video, audio and file; template (and no text) for type template, whose text is rendered from the approved template.',
  examples: [
    { to: { appUserId: 'u_7Hq2LxP9sKd3Vb1Nc5Zr8T' }, type: 'text', text: 'Your order has shipped.', clientReference: 'order-1042' },
    {
      to: { appUserId: 'u_7Hq2LxP9sKd3Vb1Nc5Zr8T' },
      type: 'template',
      template: { name: 'order_shipped', language: 'en', variables: { first_name: 'Ann', order_id: '1042' } },
    },
  ],
})
export class SendMessageDto {
  @IsDefined()
  @IsObject()
  @Validate(ExactlyOneRecipient)
  @ValidateNested()
  @Type(() => RecipientDto)
  to!: RecipientDto;

  @IsIn(SENT_MESSAGE_TYPES)
  type!: SentMessageType;

  /** Required for text (max 4096); an optional caption for media; none for a template. */
  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.type === 'text' || (o.text !== undefined && o.text !== null))
  @IsString()
  @Length(1, 4096)
  @Validate(NotForTemplates)
  text?: string | null;

  /** Required for type template: which template (name and language) and the values of its variables. */
  @ValidateIf((o) => o.type === 'template' || o.template !== undefined)
  @IsDefined()
  @IsObject()
  @Validate(OnlyForTemplates)
  @ValidateNested()
  @Type(() => TemplateSendDto)
  template?: TemplateSendDto;

  /** Required for media types; the id from POST /media. */
  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => MEDIA_TYPES.includes(o.type) || (o.mediaId !== undefined && o.mediaId !== null))
  @IsString()
  @Length(1, 64)
  @Validate(OnlyForMediaTypes)
  mediaId?: string | null;

  /** Echoed in message.status events. */
  @JSONSchema({ type: ['string', 'null'] })
  @ValidateIf((o) => o.clientReference !== undefined && o.clientReference !== null)
  @IsString()
  @Length(1, 128)
  clientReference?: string | null;
}
