import type { BlockList } from 'node:net';
import { RPC_SERVICES } from '#platform/contracts';
import { ConfigError, loadBaseConfig, SecretKeyRing, secretFromEnv, trustedProxiesFromEnv, type BaseConfig } from '#platform/service-kit';

/** Every RPC service but the gateway itself: it answers keys.* and calls (and waits on the clock of) the others. */
export const SERVICES_THE_GATEWAY_CALLS = RPC_SERVICES.filter((service) => service !== 'gateway');

export interface GatewayConfig extends BaseConfig {
  adminPort: number;
  adminToken: string;
  rateLimitRps: number;
  rateLimitBurst: number;
  /** Failed authentications per client address, for the whole platform: refill and burst. */
  authFailureRps: number;
  authFailureBurst: number;
  /** Proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES; required in production, `none` when exposed directly). */
  trustedProxies: BlockList;
  /** Seals verify tokens and opens signing secrets on their way over Kafka (shared with the webhook dispatcher). */
  secretKeys: SecretKeyRing;
  /** Node's headersTimeout and requestTimeout, and the body-read deadline (issue 32: no client holds a socket for long). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  bodyTimeoutMs: number;
  /** Dev and test: where the local SMTP sink lists what it caught (GET /admin/v1/mail); refused in production. */
  mailSinkUrl: string | null;
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const base = loadBaseConfig('gateway', 'gateway', 3000, env);
  const adminToken = secretFromEnv(env, 'ADMIN_TOKEN', base.production);
  const mailSinkUrl = env.MAIL_SINK_URL?.trim() || null;
  if (mailSinkUrl && base.production) throw new ConfigError('MAIL_SINK_URL is for dev and test only; production refuses it');
  if (mailSinkUrl && !/^https?:\/\//.test(mailSinkUrl)) throw new ConfigError('MAIL_SINK_URL must be an http(s) URL');
  return {
    ...base,
    adminPort: Number(env.ADMIN_PORT ?? 3001),
    adminToken,
    rateLimitRps: Number(env.RATE_LIMIT_RPS ?? 100),
    rateLimitBurst: Number(env.RATE_LIMIT_BURST ?? 200),
    authFailureRps: Number(env.AUTH_FAILURE_RPS ?? 1),
    authFailureBurst: Number(env.AUTH_FAILURE_BURST ?? 30),
    trustedProxies: trustedProxiesFromEnv(env, base.production),
    secretKeys: SecretKeyRing.fromEnv(env, base.production),
    headersTimeoutMs: Number(env.HTTP_HEADERS_TIMEOUT_MS ?? 10_000),
    requestTimeoutMs: Number(env.HTTP_REQUEST_TIMEOUT_MS ?? 30_000),
    bodyTimeoutMs: Number(env.HTTP_BODY_TIMEOUT_MS ?? 10_000),
    mailSinkUrl: mailSinkUrl?.replace(/\/+$/, '') ?? null,
  };
}
