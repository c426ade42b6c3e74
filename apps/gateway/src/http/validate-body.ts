import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import type { ErrorDetail } from '#platform/contracts';
import { DomainError } from '#platform/errors';

export type DtoClass<T> = new () => T;

/**
 * architecture section 3, step 7: class-validator with unknown properties rejected; every failing field is
 * listed in `details` as `{field, issue}` with dotted paths such as `to.appUserId`.
 */
export function validateBody<T extends object>(dto: DtoClass<T>, body: unknown): T {
  if (body === undefined) body = {};
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw DomainError.invalid([{ field: '', issue: 'the body must be a JSON object' }]);
  }
  const instance = plainToInstance(dto, body, { enableImplicitConversion: false, exposeDefaultValues: false });
  const errors = validateSync(instance as object, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) throw DomainError.invalid(flatten(errors));
  return instance;
}

function flatten(errors: ValidationError[], parent = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      details.push({ field, issue: constraint === 'whitelistValidation' ? 'is not allowed' : stripProperty(message, error.property) });
    }
    if (error.children?.length) details.push(...flatten(error.children, field));
  }
  return details;
}

/** class-validator messages start with the property name; details carry it in `field` already. */
function stripProperty(message: string, property: string): string {
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}
