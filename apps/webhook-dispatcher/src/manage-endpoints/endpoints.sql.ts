import type { Statement } from '#platform/postgres';
import { ENDPOINT_COLUMNS } from '../endpoints/endpoint.records';

/** The statements of EndpointsHandler: the endpoints projection it reads, and the credentials written beside its decisions (sealed by the caller). */

/** Held to the commit: one registration of an app at a time, so the count it decides on (D21's limit) stays true. */
export function appRegistrationLockStatement(appId: string): Statement {
  return { sql: `select pg_advisory_xact_lock(hashtext(?))`, params: [`webhook-endpoints:${appId}`] };
}

/** The app's endpoints (one row: `count`). */
export function endpointCountStatement(appId: string): Statement {
  return { sql: `select count(*) as count from webhook_dispatcher.endpoints where app_id = ?`, params: [appId] };
}

/** The app's endpoints, oldest first (EndpointRow). */
export function appEndpointsStatement(appId: string): Statement {
  return { sql: `select ${ENDPOINT_COLUMNS} from webhook_dispatcher.endpoints where app_id = ? order by created_at, endpoint_id`, params: [appId] };
}

/** One endpoint of the app (EndpointRow); none for another app's. */
export function endpointStatement(appId: string, endpointId: string): Statement {
  return { sql: `select ${ENDPOINT_COLUMNS} from webhook_dispatcher.endpoints where endpoint_id = ? and app_id = ?`, params: [endpointId, appId] };
}

/** A new endpoint's sealed verify token and signing secret. */
export function insertCredentialsStatement(endpointId: string, sealedVerifyToken: string, sealedSecret: string): Statement {
  return {
    sql: `insert into webhook_dispatcher.endpoint_credentials (endpoint_id, verify_token, secret) values (?, ?, ?)`,
    params: [endpointId, sealedVerifyToken, sealedSecret],
  };
}

/** The sealed verify token (one row: `verify_token`). */
export function verifyTokenStatement(endpointId: string): Statement {
  return { sql: `select verify_token from webhook_dispatcher.endpoint_credentials where endpoint_id = ?`, params: [endpointId] };
}

/** A new verify token, with a new url. */
export function setVerifyTokenStatement(endpointId: string, sealedVerifyToken: string): Statement {
  return { sql: `update webhook_dispatcher.endpoint_credentials set verify_token = ? where endpoint_id = ?`, params: [sealedVerifyToken, endpointId] };
}

/** A new signing secret; the current one stays valid as the previous one until `previousSecretExpiresAt`. */
export function rotateSecretStatement(endpointId: string, sealedSecret: string, previousSecretExpiresAt: Date): Statement {
  return {
    sql: `update webhook_dispatcher.endpoint_credentials set previous_secret = secret, previous_secret_expires_at = ?, secret = ? where endpoint_id = ?`,
    params: [previousSecretExpiresAt, sealedSecret, endpointId],
  };
}
