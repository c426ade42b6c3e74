import { isURL } from 'class-validator';
import type { BusinessProfilePatch } from './rpc-operations';

/** PATCH /business-profile's field limits (spec, Endpoints): the gateway's DTO and the console's form read them. */
export const BUSINESS_PROFILE_LIMITS = {
  displayName: { min: 2, max: 60 },
  aboutMax: 1024,
  websiteUrlMax: 2048,
  category: { min: 1, max: 100 },
} as const;

/** The URL rule of websiteUrl: an absolute http(s) URL with a top-level domain (its host becomes `domain`, D17). */
export const WEBSITE_URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true, require_tld: true };

export interface ProfilePatchIssue {
  field: keyof BusinessProfilePatch;
  issue: string;
}

const within = (value: string, min: number, max: number) => value.length >= min && value.length <= max;

/** Why a profile patch breaks the API's rules, field by field (none when it keeps them); the avatar is profile's to judge. */
export function businessProfilePatchIssues(patch: BusinessProfilePatch): ProfilePatchIssue[] {
  const issues: ProfilePatchIssue[] = [];
  const { displayName, about, websiteUrl, category } = patch;
  const L = BUSINESS_PROFILE_LIMITS;
  if (displayName !== undefined && !(typeof displayName === 'string' && within(displayName, L.displayName.min, L.displayName.max))) {
    issues.push({ field: 'displayName', issue: `must be ${L.displayName.min} to ${L.displayName.max} characters` });
  }
  if (about != null && !(typeof about === 'string' && about.length <= L.aboutMax))
    issues.push({ field: 'about', issue: `must be at most ${L.aboutMax} characters` });
  if (websiteUrl != null && !(typeof websiteUrl === 'string' && websiteUrl.length <= L.websiteUrlMax && isURL(websiteUrl, WEBSITE_URL_OPTIONS))) {
    issues.push({ field: 'websiteUrl', issue: 'must be an absolute http(s) URL' });
  }
  if (category != null && !(typeof category === 'string' && within(category, L.category.min, L.category.max))) {
    issues.push({ field: 'category', issue: `must be ${L.category.min} to ${L.category.max} characters` });
  }
  return issues;
}
