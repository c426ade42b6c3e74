import type { ErrorDetail } from '#platform/contracts';
import { DomainError } from '#platform/errors';

/**
 * Reads a list endpoint's query string, collecting every problem so that one 400 invalid_request
 * names all bad parameters at once.
 */
export class QueryReader {
  readonly details: ErrorDetail[] = [];

  constructor(private readonly query: URLSearchParams) {}

  /** The parameter's value, or null; a parameter given twice is a problem. */
  single(name: string): string | null {
    const values = this.query.getAll(name);
    if (values.length > 1) this.details.push({ field: name, issue: 'must be given at most once' });
    return values.length > 0 ? values[0] : null;
  }

  /** One of `allowed`, or null when absent. */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | null {
    const raw = this.single(name);
    if (raw === null) return null;
    if ((allowed as readonly string[]).includes(raw)) return raw as T;
    this.details.push({ field: name, issue: `must be one of ${allowed.join(', ')}` });
    return null;
  }

  /** A page size within `range`, or its default. */
  limit(range: { min: number; max: number; default: number }, name = 'limit'): number {
    const raw = this.single(name);
    if (raw === null) return range.default;
    const n = /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
    if (n >= range.min && n <= range.max) return n;
    this.details.push({ field: name, issue: `must be an integer from ${range.min} to ${range.max}` });
    return range.default;
  }

  /** Throws 400 invalid_request listing every problem found so far. */
  done(): void {
    if (this.details.length > 0) throw DomainError.invalid(this.details);
  }
}
