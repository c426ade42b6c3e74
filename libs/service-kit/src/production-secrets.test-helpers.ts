import { randomBytes } from 'node:crypto';

/** A value production takes for any secret: 48 random bytes, as `openssl rand -base64 48` makes them. */
export const strongSecret = (): string => randomBytes(48).toString('base64');

/** What production must refuse (docs/operations.md, "Secrets"): unset unless optional, the dev value, 31 bytes unless a name. */
export function refusedInProduction(devValue: string, { optional = false, identifier = false } = {}): [string, string | undefined][] {
  return [
    ...(optional ? [] : ([['missing', undefined]] as [string, undefined][])),
    ['its published dev value', devValue],
    ...(identifier ? [] : ([['31 bytes', 'k'.repeat(31)]] as [string, string][])),
  ];
}
