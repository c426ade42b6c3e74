import { ConfigError } from './config-error';

/**
 * The dev and test key of SECRETS_KEYS (secret-key-ring.ts), public by design: it protects nothing,
 * it only keeps the code path the same as production's (production refuses it).
 */
export const DEV_SECRETS_KEYS = 'dev:ZGV2LW9ubHktc2VjcmV0cy1rZXktMzItYnl0ZXMhISE';

/** Fewer bytes than this are refused for a secret in production: guessable, or a placeholder someone meant to replace. */
export const MIN_SECRET_BYTES = 32;

/** How to make a good one (docs/operations.md, "Secrets"): 48 random bytes, 64 characters of base64. */
const HOW_TO_GENERATE = 'openssl rand -base64 48';

interface SecretRule {
  /** The value .env.example, docker-compose and the dev overlay publish: dev and test use it, production refuses it. */
  devValue: string;
  /** The code falls back to devValue when unset (dev and test); otherwise unset stays unset. */
  devFallback: boolean;
  /** Unset is a valid production configuration (SERVICE_DATABASE_URL instead of a role password). */
  optional?: boolean;
  /** A name, not a secret (an S3 access key id is 20 characters on AWS): only its dev value is refused. */
  identifier?: boolean;
}

/**
 * Every secret of the platform that has a published dev value, by variable name. One table: a new
 * secret goes here, is read through secretFromEnv, and gets its row in docs/operations.md (a test
 * holds the two together).
 */
export const PLATFORM_SECRETS = {
  APP_USER_ID_SECRET: { devValue: 'dev-app-user-id-secret', devFallback: true },
  OPTIN_LINK_SECRET: { devValue: 'dev-optin-link-secret', devFallback: true },
  WEBHOOK_LISTEN_SECRET: { devValue: 'dev-webhook-listen-secret', devFallback: true },
  ADMIN_TOKEN: { devValue: 'dev-admin-token', devFallback: true },
  SECRETS_KEYS: { devValue: DEV_SECRETS_KEYS, devFallback: true },
  S3_ACCESS_KEY_ID: { devValue: 'local-access-key', devFallback: true, identifier: true },
  S3_SECRET_ACCESS_KEY: { devValue: 'local-secret-key', devFallback: true },
  DB_SERVICE_PASSWORD: { devValue: 'dev-service-password', devFallback: false, optional: true },
} as const satisfies Record<string, SecretRule>;

export type PlatformSecret = keyof typeof PLATFORM_SECRETS;

/**
 * The secret `name` from the environment (empty counts as unset). Dev and test fall back to its
 * public dev value; production refuses to start when it is missing, equal to that value, or
 * shorter than MIN_SECRET_BYTES, since every such value is public or guessable.
 */
export function secretFromEnv(env: NodeJS.ProcessEnv, name: Exclude<PlatformSecret, 'DB_SERVICE_PASSWORD'>, production: boolean): string {
  return checkedSecret(env, name, production) as string;
}

/** As secretFromEnv, for a secret production may leave unset (undefined then): when set, it is held to the same rules. */
export function optionalSecretFromEnv(env: NodeJS.ProcessEnv, name: 'DB_SERVICE_PASSWORD', production: boolean): string | undefined {
  return checkedSecret(env, name, production);
}

function checkedSecret(env: NodeJS.ProcessEnv, name: PlatformSecret, production: boolean): string | undefined {
  const rule: SecretRule = PLATFORM_SECRETS[name];
  const value = env[name] || undefined;
  if (!production) return value ?? (rule.devFallback ? rule.devValue : undefined);
  if (value === undefined) {
    if (rule.optional) return undefined;
    throw new ConfigError(`${name} is required in production${rule.identifier ? '' : ` (at least ${MIN_SECRET_BYTES} random bytes: ${HOW_TO_GENERATE})`}`);
  }
  if (value === rule.devValue) throw new ConfigError(`Refusing to run in production with the published dev value of ${name}`);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (!rule.identifier && bytes < MIN_SECRET_BYTES)
    throw new ConfigError(`${name} must be at least ${MIN_SECRET_BYTES} bytes in production, not ${bytes} (${HOW_TO_GENERATE})`);
  return value;
}
