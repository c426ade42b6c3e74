/**
 * What profile answers (apps, their status and business profile) and the resources it builds.
 * Part of the operation map in ../rpc-operations.ts.
 */
import type { AppStatus, AppStatusAction, VerificationStatus } from '../app-status';
import type { MediaForUse } from './media.operations';

/** An app as the admin API's calls see it; `version` is its stream version, to wait for elsewhere. */
export interface AppRecord {
  id: string;
  orgId: string;
  handle: string;
  status: AppStatus;
  verificationStatus: VerificationStatus;
  dailyQuota: number;
  version: number;
}

export interface CreateAppCall {
  orgId: string;
  handle: string;
  displayName: string;
  creatorEmail?: string | null;
}

/** The spec's BusinessProfile resource. */
export interface BusinessProfile {
  appId: string;
  handle: string;
  displayName: string;
  avatarUrl: string | null;
  about: string | null;
  websiteUrl: string | null;
  domain: string | null;
  category: string | null;
  verificationStatus: VerificationStatus;
  verifiedAt: string | null;
  updatedAt: string;
}

/** PATCH /business-profile's body: every field optional, null clears a nullable one. */
export interface BusinessProfilePatch {
  displayName?: string;
  about?: string | null;
  websiteUrl?: string | null;
  category?: string | null;
  avatarMediaId?: string | null;
}

export interface UpdateBusinessProfileCall {
  appId: string;
  patch: BusinessProfilePatch;
  /** media.prepare's answer for `patch.avatarMediaId`, when one is given. */
  avatar?: MediaForUse;
}

export interface ProfileOperations {
  /** Admin POST /apps: creates the app in sandbox for an existing org; a taken handle is 409. */
  'apps.create': { request: CreateAppCall; reply: AppRecord };
  'apps.get': { request: { appId: string }; reply: AppRecord };
  /** Admin status moves (D18). */
  'apps.changeStatus': {
    request: { appId: string; action: AppStatusAction; reason?: string | null };
    reply: { status: AppStatus; previousStatus: AppStatus; version: number };
  };
  /** Admin verification moves (D19); answers the profile after the move. */
  'apps.setVerification': { request: { appId: string; status: VerificationStatus }; reply: { profile: BusinessProfile; version: number } };
  /** Admin PATCH /apps/{id}: the daily quota. */
  'apps.update': { request: { appId: string; dailyQuota?: number }; reply: AppRecord };
  /** GET /business-profile, with an avatar URL signed for this read. */
  'profile.get': { request: { appId: string }; reply: BusinessProfile };
  /** PATCH /business-profile; the avatar is checked against media's facts (D10). */
  'profile.update': { request: UpdateBusinessProfileCall; reply: BusinessProfile };
  /** Whether profile's projection knows the org yet (chat-sim creates orgs). */
  'orgs.exists': { request: { orgId: string }; reply: { exists: boolean } };
}
