import { runStatement } from '#platform/postgres';
import { log, type ServiceRuntime } from '#platform/service-kit';
import { Counter } from 'prom-client';
import type { ApiKeyCache } from '../api-keys/api-key.cache';
import { looksLikeApiKey } from '../api-keys/api-key-format';
import { RequestLogBuffer } from './request-log.buffer';
import { requestLogRow, type RequestLogRow, type SeenRequest } from './request-log.entry';
import { insertRequestLogStatement } from './request-log.sql';

export interface RequestLogSettings {
  /** Entries held in memory at most. */
  capacity: number;
  /** Rows per INSERT. */
  batchSize: number;
  flushEveryMs: number;
}

export const REQUEST_LOG_DEFAULTS: RequestLogSettings = { capacity: 20_000, batchSize: 2_000, flushEveryMs: 200 };

/**
 * The gateway's request log (docs/adr/0216-request-log-off-the-request-path.md): a finished request
 * becomes a row pushed into a bounded buffer, written to `gateway.request_log_batches` every
 * `flushEveryMs` or `batchSize` rows. A request never waits for it and never fails by it; what does
 * not fit, or whose write fails, is counted in `gateway_request_log_dropped_total{reason}`.
 */
export class RequestLogRecorder {
  private readonly buffer: RequestLogBuffer<RequestLogRow>;
  private failing = false;

  constructor(
    runtime: ServiceRuntime,
    private readonly keys: ApiKeyCache,
    private readonly settings: RequestLogSettings = REQUEST_LOG_DEFAULTS,
  ) {
    const dropped = new Counter({
      name: 'gateway_request_log_dropped_total',
      help: 'Requests the request log did not keep: buffer full, the app over its share of it, or the write failed',
      labelNames: ['reason'],
      registers: [runtime.metrics.registry],
    });
    const written = new Counter({
      name: 'gateway_request_log_written_total',
      help: 'Requests written to the request log',
      registers: [runtime.metrics.registry],
    });
    this.buffer = new RequestLogBuffer<RequestLogRow>({
      capacity: settings.capacity,
      // A quarter of the buffer: a flood from one app leaves room for the others.
      maxPerApp: Math.max(1, Math.floor(settings.capacity / 4)),
      batchSize: settings.batchSize,
      write: async (batch) => {
        await runStatement(runtime.em(), insertRequestLogStatement(batch));
        if (this.failing) log('info', 'request log writes again');
        this.failing = false;
      },
      written: (count) => written.inc(count),
      dropped: (reason, count) => dropped.inc({ reason }, count),
      failed: (error) => {
        // Once per failing spell, not once per batch.
        if (!this.failing) log('warn', 'request log write failed; dropping entries until it works', { error: String((error as Error)?.message ?? error) });
        this.failing = true;
      },
    });
  }

  start(): void {
    this.buffer.start(this.settings.flushEveryMs);
  }

  /** Called once a request has been answered: a row and a push, nothing awaited. */
  record(seen: SeenRequest, authorization: string | undefined): void {
    const row = requestLogRow(seen, () => this.knownKey(authorization));
    if (row) this.buffer.push(row);
  }

  /** Writes what is held; the gateway calls it on shutdown, after its server stopped taking requests. */
  close(): Promise<void> {
    return this.buffer.close();
  }

  /** The app of a key refused before it was found (revoked, expired, or a refusal ahead of the lookup), if this replica knows it. */
  private knownKey(authorization: string | undefined): { appId: string; prefix: string } | null {
    const key = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
    const record = key && looksLikeApiKey(key) ? this.keys.cached(key) : null;
    return record && { appId: record.appId, prefix: record.prefix };
  }
}
