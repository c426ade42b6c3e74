import { ConfigError } from '#platform/service-kit';

/** WEBHOOK_LISTEN_SECRET: the server key listen secrets are derived from; production refuses to start without one. */
export function listenServerSecret(env: NodeJS.ProcessEnv, production: boolean): string {
  const secret = env.WEBHOOK_LISTEN_SECRET ?? (production ? '' : 'dev-webhook-listen-secret');
  if (!secret) throw new ConfigError('WEBHOOK_LISTEN_SECRET is required in production');
  return secret;
}
