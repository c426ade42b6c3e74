/** POST /optin-links's rules (spec, Endpoints; D16), for the gateway's DTO and the console's form alike. */
export const OPTIN_LINK_REF_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;
export const OPTIN_LINK_MIN_DAYS = 1;
export const OPTIN_LINK_MAX_DAYS = 90;

/** Why an opt-in link request breaks the rules, or null when it keeps them. */
export function optInLinkProblem(ref: string | null, expiresInDays: number | null): string | null {
  if (ref !== null && !OPTIN_LINK_REF_PATTERN.test(ref)) return 'The ref may have 1 to 64 letters, digits and _ . : - only.';
  if (expiresInDays !== null && !(Number.isInteger(expiresInDays) && expiresInDays >= OPTIN_LINK_MIN_DAYS && expiresInDays <= OPTIN_LINK_MAX_DAYS)) {
    return `A link stays valid for ${OPTIN_LINK_MIN_DAYS} to ${OPTIN_LINK_MAX_DAYS} days.`;
  }
  return null;
}
