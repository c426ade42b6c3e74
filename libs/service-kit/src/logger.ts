/** One JSON line per log entry on stdout (structured logging; pino comes with the operations work). */
export function log(level: 'debug' | 'info' | 'warn' | 'error', msg: string, fields: Record<string, unknown> = {}): void {
  if (level === 'debug' && !process.env.LOG_DEBUG) return;
  process.stdout.write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }) + '\n');
}
