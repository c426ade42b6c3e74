import { randomBytes } from 'node:crypto';

/** A value production takes for any secret: 48 random bytes, as `openssl rand -base64 48` makes them. */
export function strongSecret(): string {
  return randomBytes(48).toString('base64');
}

/**
 * The values of a secret production must refuse at start (docs/operations.md, "Secrets"), by case:
 * unset (unless unset is a valid setting), its published dev value, and one byte short of 32
 * (unless it is a name rather than a secret).
 */
export function refusedInProduction(devValue: string, { optional = false, identifier = false } = {}): [string, string | undefined][] {
  return [
    ...(optional ? [] : ([['missing', undefined]] as [string, undefined][])),
    ['its published dev value', devValue],
    ...(identifier ? [] : ([['31 bytes', 'k'.repeat(31)]] as [string, string][])),
  ];
}
