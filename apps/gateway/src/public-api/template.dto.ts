import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import {
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { TEMPLATE_CATEGORIES, TEMPLATE_LIMITS, TEMPLATE_REVIEW_DECISIONS, type TemplateCategory, type TemplateReviewDecision } from '#platform/contracts';

/**
 * Template bodies (architecture section 13). The DTOs check shapes; the template rules (name and
 * language formats, lengths, variables and their examples) are messaging's, which lists every
 * failing field at once (invalid_request details).
 */

/** A map of strings by name: examples, or a send's variables. */
@ValidatorConstraint({ name: 'stringValues' })
export class StringValues implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
  }
  defaultMessage(): string {
    return 'must be an object of strings by variable name';
  }
}

const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } } as const;
const EXAMPLE_COMPONENTS = { body: { text: 'Hi {{first_name}}, order {{order_id}} has shipped.' }, footer: { text: 'Reply STOP to opt out.' } };

@JSONSchema({ title: 'TemplateText' })
export class TemplateTextDto {
  @IsDefined()
  @IsString()
  @MaxLength(TEMPLATE_LIMITS.bodyMax * 4)
  text!: string;
}

@JSONSchema({
  title: 'TemplateComponentsInput',
  description: `header (≤ ${TEMPLATE_LIMITS.headerMax} characters) and body (${TEMPLATE_LIMITS.bodyMin}–${TEMPLATE_LIMITS.bodyMax}) may hold {{variable}} placeholders (a-z, 0-9, _); the footer (≤ ${TEMPLATE_LIMITS.footerMax}) may not.`,
})
export class TemplateComponentsDto {
  @IsOptional()
  @ValidateNested()
  @Type(() => TemplateTextDto)
  header?: TemplateTextDto;

  @IsDefined()
  @ValidateNested()
  @Type(() => TemplateTextDto)
  body!: TemplateTextDto;

  @IsOptional()
  @ValidateNested()
  @Type(() => TemplateTextDto)
  footer?: TemplateTextDto;
}

/** POST /templates. */
@JSONSchema({
  title: 'CreateTemplateRequest',
  description: 'examples gives a value for every variable. The same name and language twice → 409 template_exists; at most 250 templates per app.',
  examples: [{ name: 'order_shipped', language: 'en', category: 'utility', components: EXAMPLE_COMPONENTS, examples: { first_name: 'Ann', order_id: '1042' } }],
})
export class CreateTemplateDto {
  @JSONSchema({ pattern: '^[a-z0-9_]{1,512}$' })
  @IsDefined()
  @IsString()
  @MaxLength(512)
  name!: string;

  @JSONSchema({ description: 'A language code with an optional region, like en or en_US.' })
  @IsDefined()
  @IsString()
  @MaxLength(16)
  language!: string;

  @IsIn(TEMPLATE_CATEGORIES)
  category!: TemplateCategory;

  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => TemplateComponentsDto)
  components!: TemplateComponentsDto;

  @JSONSchema(STRING_MAP)
  @IsDefined()
  @Validate(StringValues)
  examples!: Record<string, string>;
}

/** PATCH /templates/{id}: a new version (pending again; a sandbox app's approved at once). */
@JSONSchema({
  title: 'UpdateTemplateRequest',
  description: 'What is left out stays as it was; examples left out are kept for the variables still there.',
  examples: [{ components: { body: { text: 'Hi {{first_name}}, your order {{order_id}} is on its way.' } } }],
})
export class UpdateTemplateDto {
  @IsOptional()
  @IsIn(TEMPLATE_CATEGORIES)
  category?: TemplateCategory;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TemplateComponentsDto)
  components?: TemplateComponentsDto;

  @JSONSchema(STRING_MAP)
  @IsOptional()
  @Validate(StringValues)
  examples?: Record<string, string>;
}

/** `POST /admin/v1/templates/{id}/review`. */
export class ReviewTemplateDto {
  @IsIn(TEMPLATE_REVIEW_DECISIONS)
  decision!: TemplateReviewDecision;

  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
}

/** A send's template: `POST /messages` with `type: "template"`. */
@JSONSchema({ title: 'TemplateSend', examples: [{ name: 'order_shipped', language: 'en', variables: { first_name: 'Ann', order_id: '1042' } }] })
export class TemplateSendDto {
  @IsDefined()
  @IsString()
  @MaxLength(512)
  name!: string;

  @IsDefined()
  @IsString()
  @MaxLength(16)
  language!: string;

  @JSONSchema(STRING_MAP)
  @IsDefined()
  @Validate(StringValues)
  variables!: Record<string, string>;
}
