import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import { ValidationTypes } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import type { JsonSchema } from '#platform/contracts';
import type { DtoClass } from '../http/validate-body';

const SCHEMAS_PREFIX = '#/components/schemas/';

// class-transformer keeps its @Type metadata in a module it does not export by name; nested DTOs need it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: MetadataStorage };

/**
 * The request bodies' JSON Schemas, read from the same class-validator decorators that validate them
 * (step 7 of the pipeline). A DTO's component name is the `title` of its `@JSONSchema`, else its
 * class name; every body refuses unknown properties, as the validator does.
 */
export function requestSchemas(dtos: DtoClass<object>[]): { names: Map<DtoClass<object>, string>; schemas: Record<string, JsonSchema> } {
  const byClass = validationMetadatasToSchemas({
    refPointerPrefix: SCHEMAS_PREFIX,
    classTransformerMetadataStorage: defaultMetadataStorage,
    // Cross-field rules (exactly one recipient, media-only fields) are written as schema at class level.
    additionalConverters: { [ValidationTypes.CUSTOM_VALIDATION]: () => ({}) },
  }) as Record<string, JsonSchema>;

  const nameOf = (className: string): string => (byClass[className]?.title as string | undefined) ?? className;
  const wanted = new Set<string>();
  const visit = (className: string) => {
    if (wanted.has(className) || !byClass[className]) return;
    wanted.add(className);
    for (const referenced of refsIn(byClass[className])) visit(referenced);
  };
  for (const dto of dtos) visit(dto.name);

  const schemas: Record<string, JsonSchema> = {};
  for (const className of wanted) {
    const { title: _title, ...schema } = tidy(byClass[className], nameOf) as JsonSchema;
    schemas[nameOf(className)] = { ...schema, additionalProperties: false };
  }
  return { names: new Map(dtos.map((dto) => [dto, nameOf(dto.name)])), schemas };
}

function refsIn(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(refsIn);
  if (schema === null || typeof schema !== 'object') return [];
  return Object.entries(schema).flatMap(([key, value]) =>
    key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMAS_PREFIX) ? [value.slice(SCHEMAS_PREFIX.length)] : refsIn(value),
  );
}

/** Renames references to their component names and drops `not: {type: null}` (IsDefined), which `required` already says. */
function tidy(schema: unknown, nameOf: (className: string) => string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => tidy(s, nameOf));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'not' && JSON.stringify(value) === '{"type":"null"}') continue;
    // class-validator's IsUrl is JSON Schema's uri.
    if (key === 'format' && value === 'url') {
      out[key] = 'uri';
      continue;
    }
    if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMAS_PREFIX)) out[key] = SCHEMAS_PREFIX + nameOf(value.slice(SCHEMAS_PREFIX.length));
    else out[key] = tidy(value, nameOf);
  }
  // A reference with a type beside it says the same thing twice.
  if (typeof out.$ref === 'string') delete out.type;
  return out;
}
