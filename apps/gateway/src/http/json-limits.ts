import type { ErrorDetail } from '#platform/contracts';
import { DomainError } from '#platform/errors';

/** No request body of the API nests deeper than a few levels; 32 leaves room and keeps every later walk shallow. */
export const MAX_JSON_DEPTH = 32;
/** Members of one object or items of one array. */
export const MAX_JSON_WIDTH = 1_000;
/** Values in the whole body. */
export const MAX_JSON_VALUES = 10_000;

/**
 * Refuses a parsed body too deep or too wide before anything recursive (class-transformer,
 * class-validator, the Idempotency-Key hash) sees it: one iterative walk, stopping at the first problem.
 */
export function checkJsonLimits(body: unknown): void {
  const stack: { value: unknown; field: string; depth: number }[] = [{ value: body, field: '', depth: 1 }];
  let values = 0;
  while (stack.length > 0) {
    const { value, field, depth } = stack.pop()!;
    if (++values > MAX_JSON_VALUES) refuse({ field: '', issue: `must hold at most ${MAX_JSON_VALUES} values` });
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) refuse({ field, issue: `is nested deeper than ${MAX_JSON_DEPTH} levels` });
    const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item] as const) : Object.entries(value);
    if (entries.length > MAX_JSON_WIDTH) refuse({ field, issue: `must have at most ${MAX_JSON_WIDTH} ${Array.isArray(value) ? 'items' : 'members'}` });
    for (const [name, child] of entries) stack.push({ value: child, field: field ? `${field}.${name}` : name, depth: depth + 1 });
  }
}

function refuse(detail: ErrorDetail): never {
  throw DomainError.invalid([detail]);
}
