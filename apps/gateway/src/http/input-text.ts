import type { ErrorDetail } from '#platform/contracts';
import { DomainError } from '#platform/errors';

/** Postgres text and jsonb refuse NUL, and unpaired surrogates are not Unicode: neither may reach storage. */
const NOT_STORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Ids and query values are printable: no control character has a meaning in any of them. */
const NOT_PRINTABLE = /[\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Names that reach an object's prototype chain; no DTO has them, so they are unknown properties. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Enough to name what is wrong without echoing a hostile body back at length. */
const MAX_DETAILS = 20;

/**
 * Every string and member name of a parsed body (already bounded by checkJsonLimits), in one
 * iterative walk before the DTO sees it, so no route can forget a field.
 */
export function checkBodyText(body: unknown): void {
  const details: ErrorDetail[] = [];
  const stack: { value: unknown; field: string }[] = [{ value: body, field: '' }];
  while (stack.length > 0 && details.length < MAX_DETAILS) {
    const { value, field } = stack.pop()!;
    if (typeof value === 'string') {
      if (NOT_STORABLE.test(value)) details.push({ field, issue: 'must not contain NUL characters or unpaired surrogates' });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const isArray = Array.isArray(value);
    for (const [name, child] of isArray ? value.map((item, i) => [String(i), item] as const) : Object.entries(value)) {
      const path = field ? `${field}.${name}` : name;
      if (!isArray && FORBIDDEN_KEYS.has(name)) details.push({ field: path, issue: 'is not allowed' });
      else if (!isArray && NOT_STORABLE.test(name)) details.push({ field: path, issue: 'is not allowed' });
      else stack.push({ value: child, field: path });
    }
  }
  if (details.length > 0) throw DomainError.invalid(details.slice(0, MAX_DETAILS));
}

/** Path parameters and every query name and value, before any route reads them. */
export function checkUrlText(params: Record<string, string>, query: URLSearchParams, maxParamLength: number): void {
  const details: ErrorDetail[] = [];
  for (const [name, value] of Object.entries(params)) {
    if (NOT_PRINTABLE.test(value)) details.push({ field: name, issue: 'must not contain control characters or unpaired surrogates' });
    else if (value.length > maxParamLength) details.push({ field: name, issue: `must be at most ${maxParamLength} characters` });
  }
  for (const [name, value] of query) {
    if (NOT_PRINTABLE.test(name) || NOT_PRINTABLE.test(value)) details.push({ field: name, issue: 'must not contain control characters' });
    if (details.length >= MAX_DETAILS) break;
  }
  if (details.length > 0) throw DomainError.invalid(details);
}
