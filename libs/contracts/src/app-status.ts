/** App status values (D18). The access ladder is sandbox → internal_live → public_live. */
export const APP_STATUSES = ['sandbox', 'internal_live', 'public_live', 'suspended', 'rejected'] as const;
export type AppStatus = (typeof APP_STATUSES)[number];

/** Statuses in which the API cannot be used at all (403 app_suspended). */
export const BLOCKED_APP_STATUSES: readonly AppStatus[] = ['suspended', 'rejected'];

/** Statuses in which live keys work (otherwise 403 key_environment_mismatch). */
export const LIVE_APP_STATUSES: readonly AppStatus[] = ['internal_live', 'public_live'];

export const VERIFICATION_STATUSES = ['unverified', 'pending', 'verified', 'revoked'] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** The admin moves on the access ladder (D18). */
export const APP_STATUS_ACTIONS = ['approve', 'suspend', 'reinstate', 'reject'] as const;
export type AppStatusAction = (typeof APP_STATUS_ACTIONS)[number];
