import { ConfigError, loadBaseConfig, SecretKeyRing, type BaseConfig } from '@platform/service-kit';

export interface GatewayConfig extends BaseConfig {
  adminPort: number;
  adminToken: string;
  rateLimitRps: number;
  rateLimitBurst: number;
  /** Failed authentications per client address, for the whole platform: refill and burst. */
  authFailureRps: number;
  authFailureBurst: number;
  /** Proxies whose X-Forwarded-For is believed (addresses or CIDRs); none by default. */
  trustedProxies: string[];
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
    authFailureRps: Number(env.AUTH_FAILURE_RPS ?? 1),
    authFailureBurst: Number(env.AUTH_FAILURE_BURST ?? 30),
    trustedProxies: (env.TRUSTED_PROXIES ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    secretKeys: SecretKeyRing.fromEnv(env, base.production),
  };
}
