import { secretFromEnv } from '#platform/service-kit';

/** WEBHOOK_LISTEN_SECRET: the server key listen secrets are derived from; production refuses a missing, dev or short one. */
export function listenServerSecret(env: NodeJS.ProcessEnv, production: boolean): string {
  return secretFromEnv(env, 'WEBHOOK_LISTEN_SECRET', production);
}
