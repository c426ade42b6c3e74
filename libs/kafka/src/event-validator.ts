import Ajv, { type ValidateFunction } from 'ajv';
import { EVENT_DATA_SCHEMAS, type DomainEvent } from '#platform/contracts';

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const compiled = new Map<string, ValidateFunction>();

/** Checks the envelope and, when the type has a schema in contracts, its data. Returns the problem or null. */
export function validateDomainEvent(value: unknown): string | null {
  const e = value as Partial<DomainEvent> | null;
  if (!e || typeof e !== 'object') return 'event is not an object';
  for (const field of ['eventId', 'type', 'occurredAt', 'streamId'] as const) {
    if (typeof e[field] !== 'string' || (e[field] as string).length === 0) return `envelope field ${field} missing`;
  }
  if (typeof e.streamVersion !== 'number') return 'envelope field streamVersion missing';
  if (!Object.hasOwn(EVENT_DATA_SCHEMAS, e.type as string)) return null;
  try {
    let validate = compiled.get(e.type as string);
    if (!validate) {
      validate = ajv.compile(EVENT_DATA_SCHEMAS[e.type as string]);
      compiled.set(e.type as string, validate);
    }
    if (validate(e.data)) return null;
    return ajv.errorsText(validate.errors, { dataVar: 'data' });
  } catch (error) {
    return `schema check failed: ${(error as Error).message}`;
  }
}
