import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { RequestLogDetail, RequestLogEntry, RequestLogPage } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { isoTime, ServiceRuntime } from '#platform/service-kit';
import { encodeRequestLogCursor, parseGetRequestLogCall, parseListRequestLogCall } from './request-log.query';
import { getRequestLogStatement, LAST_REQUEST_ID, listRequestLogStatement, requestLogEdgeStatement, type RequestLogDbRow } from './request-log.sql';

/** The developer console's way to an app's request log: requests.list and requests.get, always for one app. */
@Injectable()
export class RequestLogRpc implements OnModuleInit {
  constructor(
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'gateway'>,
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({
      'requests.list': (p) => this.list(p),
      'requests.get': (p) => this.get(p),
    });
  }

  async list(p: unknown): Promise<RequestLogPage> {
    const { call, cursor } = parseListRequestLogCall(p);
    const nowMs = this.runtime.clock.nowMs();
    const [edgeRow] = await runStatement<{ last_at: Date | string }>(this.runtime.em(), requestLogEdgeStatement(call, cursor, nowMs));
    const edge = edgeRow ? new Date(edgeRow.last_at) : null;
    const rows = await runStatement<RequestLogDbRow>(this.runtime.em(), listRequestLogStatement(call, cursor, nowMs, edge));
    const page = rows.slice(0, call.limit).map(entryOf);
    const last = page[page.length - 1];
    // A full page goes on after its last row; a page that read only some of the batches, from the newest time the others may hold.
    const next = rows.length > call.limit ? { at: last.at, requestId: last.requestId } : edge ? { at: edge.toISOString(), requestId: LAST_REQUEST_ID } : null;
    return { data: page, nextCursor: next && encodeRequestLogCursor(next) };
  }

  async get(p: unknown): Promise<RequestLogDetail> {
    const { appId, requestId } = parseGetRequestLogCall(p);
    const statement = getRequestLogStatement(appId, requestId, this.runtime.clock.nowMs());
    const [row] = statement ? await runStatement<RequestLogDbRow>(this.runtime.em(), statement) : [];
    if (!row) throw new DomainError('not_found', 'No such request in the last 7 days.');
    return { ...entryOf(row), errorEnvelope: (row.error_envelope ?? null) as RequestLogDetail['errorEnvelope'] };
  }
}

function entryOf(row: RequestLogDbRow): RequestLogEntry {
  return {
    requestId: row.request_id,
    at: isoTime(row.at),
    method: row.method,
    path: row.path,
    status: Number(row.status),
    errorCode: row.error_code,
    keyPrefix: row.key_prefix,
    durationMs: Number(row.duration_ms),
  };
}
