import { isISO8601 } from 'class-validator';
import type { JsonSchema } from '#platform/contracts';
import { QueryReader } from './query-reader';

/**
 * One query parameter of a list endpoint. The same declaration parses the request (400
 * invalid_request naming every bad parameter) and describes the parameter in the OpenAPI document,
 * so the two cannot disagree.
 */
export type QueryParamSpec =
  | { name: string; description: string; kind: 'enum'; values: readonly string[] }
  | { name: string; description: string; kind: 'limit'; min: number; max: number; default: number }
  | { name: string; description: string; kind: 'string'; minLength: number; maxLength: number; pattern?: RegExp; issue: string }
  /** A comma-separated list of some of `values` (trimmed, without repeats, sorted); null when absent. */
  | { name: string; description: string; kind: 'list'; values: readonly string[] }
  /** An RFC 3339 date-time with its offset, read as the ISO string of that instant (UTC); null when absent. */
  | { name: string; description: string; kind: 'datetime' };

/** RFC 3339's date-time: a date, a time and an offset (Z or ±hh:mm). */
export const RFC3339_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A query value as a date-time's instant, or null. A `+` left unencoded in a query string arrives
 * as a space (form encoding); an offset written so is read as the `+` it was meant to be.
 */
export function queryDateTime(raw: string): Date | null {
  const value = raw.replace(/ (\d{2}:\d{2})$/, '+$1');
  if (!RFC3339_DATE_TIME.test(value) || !isISO8601(value, { strict: true, strictSeparator: true })) return null;
  const at = new Date(value);
  return Number.isFinite(at.getTime()) ? at : null;
}

export interface QuerySpec {
  params: readonly QueryParamSpec[];
  /** Refuse parameters the endpoint does not know (they would otherwise be ignored silently). */
  refuseUnknown: boolean;
}

/** Reads the query by its spec: enums and strings as given or null, limits as numbers (their default when absent). */
export function readQuery(spec: QuerySpec, query: URLSearchParams): Record<string, string | number | string[] | null> {
  const reader = new QueryReader(query);
  if (spec.refuseUnknown) {
    const known = new Set(spec.params.map((p) => p.name));
    for (const name of new Set(query.keys())) if (!known.has(name)) reader.details.push({ field: name, issue: 'is not a known parameter' });
  }
  const values: Record<string, string | number | string[] | null> = {};
  for (const param of spec.params) {
    switch (param.kind) {
      case 'enum':
        values[param.name] = reader.oneOf(param.name, param.values);
        break;
      case 'limit':
        values[param.name] = reader.limit(param, param.name);
        break;
      case 'string': {
        const raw = reader.single(param.name);
        const fits = raw !== null && raw.length >= param.minLength && raw.length <= param.maxLength && (!param.pattern || param.pattern.test(raw));
        if (raw !== null && !fits) reader.details.push({ field: param.name, issue: param.issue });
        values[param.name] = fits ? raw : null;
        break;
      }
      case 'datetime': {
        const raw = reader.single(param.name);
        const at = raw === null ? null : queryDateTime(raw);
        if (raw !== null && !at) reader.details.push({ field: param.name, issue: 'must be an RFC 3339 date-time with an offset, like 2026-10-14T09:30:00Z' });
        values[param.name] = at ? at.toISOString() : null;
        break;
      }
      case 'list': {
        const raw = reader.single(param.name);
        const asked = raw === null ? [] : raw.split(',').map((item) => item.trim());
        const fits = asked.length > 0 && asked.every((item) => param.values.includes(item));
        if (raw !== null && !fits) reader.details.push({ field: param.name, issue: `must be a comma-separated list of ${param.values.join(', ')}` });
        values[param.name] = fits ? [...new Set(asked)].sort() : null;
        break;
      }
    }
  }
  reader.done();
  return values;
}

/** The parameter's JSON Schema for the OpenAPI document. */
export function queryParamSchema(param: QueryParamSpec): JsonSchema {
  switch (param.kind) {
    case 'enum':
      return { type: 'string', enum: [...param.values] };
    case 'limit':
      return { type: 'integer', minimum: param.min, maximum: param.max, default: param.default };
    case 'string':
      return { type: 'string', minLength: param.minLength, maxLength: param.maxLength, ...(param.pattern ? { pattern: param.pattern.source } : {}) };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'list':
      return {
        type: 'string',
        pattern: `^(${param.values.map((v) => v.replace(/\./g, '\\.')).join('|')})(,(${param.values.map((v) => v.replace(/\./g, '\\.')).join('|')}))*$`,
      };
  }
}
