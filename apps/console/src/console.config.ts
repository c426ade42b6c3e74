import type { BlockList } from 'node:net';
import { mailSettingsFromEnv, type MailSettings } from '#platform/mail';
import { SecretKeyRing, trustedProxiesFromEnv } from '#platform/service-kit';
import { consoleCookies, type ConsoleCookies } from './sessions/console-cookies';

export interface ConsoleSettings {
  /** Where people reach the console (CONSOLE_URL): the links in emails point there. */
  consoleUrl: string;
  mail: MailSettings;
  /** TRUSTED_PROXIES, read as the gateway reads it (required in production, `none` when exposed directly). */
  trustedProxies: BlockList;
  /** SECRETS_KEYS: opens the secret fields of RPC replies (a new endpoint's signing secret). */
  secretKeys: SecretKeyRing;
  /** Its cookies' names and flag, decided by the scheme of CONSOLE_URL: `__Host-` and Secure over https (production). */
  cookies: ConsoleCookies;
  /** INTERNAL_PORT (default 3003): /healthz, /readyz and /metrics, for probes and Prometheus, never the ingress. */
  internalPort: number;
}

export function loadConsoleSettings(env: NodeJS.ProcessEnv, production: boolean): ConsoleSettings {
  const consoleUrl = (env.CONSOLE_URL?.trim() || 'http://localhost:3002').replace(/\/+$/, '');
  if (!/^https?:\/\//.test(consoleUrl)) throw new Error('CONSOLE_URL must be an http(s) URL');
  if (production && !consoleUrl.startsWith('https://')) throw new Error('CONSOLE_URL must use https in production');
  const internalPort = Number(env.INTERNAL_PORT ?? 3003);
  if (!Number.isInteger(internalPort) || internalPort < 1 || internalPort > 65535)
    throw new Error(`INTERNAL_PORT must be a port number, not ${env.INTERNAL_PORT}`);
  if (String(internalPort) === String(env.PORT ?? 3002)) throw new Error('INTERNAL_PORT must differ from the console port: the ingress reaches that one');
  return {
    consoleUrl,
    cookies: consoleCookies(consoleUrl),
    internalPort,
    mail: mailSettingsFromEnv(env, { production }),
    trustedProxies: trustedProxiesFromEnv(env, production),
    secretKeys: SecretKeyRing.fromEnv(env, production),
  };
}
