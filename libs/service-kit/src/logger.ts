import pino from 'pino';
import { currentLogFields } from './log-context';
import { redactSqlInFields } from './sql-redaction';

type Level = 'debug' | 'info' | 'warn' | 'error';

/** LOG_LEVEL (debug, info, warn, error); LOG_DEBUG=1 is the older switch for debug. Default info. */
function levelFromEnv(env: NodeJS.ProcessEnv): Level {
  const wanted = (env.LOG_LEVEL ?? '').toLowerCase();
  if (wanted === 'debug' || wanted === 'info' || wanted === 'warn' || wanted === 'error') return wanted;
  return env.LOG_DEBUG ? 'debug' : 'info';
}

/**
 * One JSON line per entry on stdout (pino): ISO `time`, `level` as its name, `service` once
 * setLogService was called, and the request id, correlation id, app id, trace and span ids of the
 * current unit of work (log-context.ts) merged into every line.
 */
let logger = pino({
  level: levelFromEnv(process.env),
  base: undefined,
  messageKey: 'msg',
  timestamp: pino.stdTimeFunctions.isoTime,
  formatters: { level: (label) => ({ level: label }) },
  mixin: () => currentLogFields(),
});

/** Names the service on every line from now on (ServiceRuntime calls it). */
export function setLogService(service: string): void {
  logger = logger.child({ service });
}

export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  if (!logger.isLevelEnabled(level)) return;
  // Database errors arrive stringified with their statement and its values: never written as they are.
  logger[level](redactSqlInFields(fields), msg);
}

/** Whether `level` is written (to skip building fields of debug lines on hot paths). */
export function logEnabled(level: Level): boolean {
  return logger.isLevelEnabled(level);
}
