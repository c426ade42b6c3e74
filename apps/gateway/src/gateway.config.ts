import { ConfigError, loadBaseConfig, SecretKeyRing, type BaseConfig } from '@platform/service-kit';

export interface GatewayConfig extends BaseConfig {
  adminPort: number;
  adminToken: string;
  rateLimitRps: number;
  rateLimitBurst: number;
  /** Seals verify tokens and opens signing secrets on their way over Kafka (shared with the webhook dispatcher). */
  secretKeys: SecretKeyRing;
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const base = loadBaseConfig('gateway', 'gateway', 3000, env);
  const adminToken = env.ADMIN_TOKEN ?? (base.production ? '' : 'dev-admin-token');
  if (!adminToken) throw new ConfigError('ADMIN_TOKEN is required in production');
  if (base.production && adminToken === 'dev-admin-token') throw new ConfigError('Refusing to run in production with the dev ADMIN_TOKEN');
  return {
    ...base,
    adminPort: Number(env.ADMIN_PORT ?? 3001),
    adminToken,
    rateLimitRps: Number(env.RATE_LIMIT_RPS ?? 100),
    rateLimitBurst: Number(env.RATE_LIMIT_BURST ?? 200),
    secretKeys: SecretKeyRing.fromEnv(env, base.production),
  };
}
