/**
 * Tiny JSON Schema builders so each event's schema reads like a typed record with a doc comment per
 * field. Schemas are plain JSON Schema (draft 2020-12 subset) and are validated with Ajv on consume.
 */
export type JsonSchema = Record<string, unknown>;

export const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
export const nullableStr = (description: string, extra: JsonSchema = {}): JsonSchema => ({
  type: ['string', 'null'],
  description,
  ...extra,
});
export const int = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', description, ...extra });
export const bool = (description: string): JsonSchema => ({ type: 'boolean', description });
export const oneOf = (description: string, values: readonly string[]): JsonSchema => ({ type: 'string', enum: [...values], description });
export const nullableOneOf = (description: string, values: readonly string[]): JsonSchema => ({
  enum: [...values, null],
  description,
});
export const arrayOf = (description: string, items: JsonSchema): JsonSchema => ({ type: 'array', items, description });

/** An object schema; every listed property is required unless named in `optional`. */
export function record(properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}
