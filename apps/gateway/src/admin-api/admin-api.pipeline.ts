import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestId } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import { SpanKind } from '@opentelemetry/api';
import { currentTraceparent, runWithLogContext } from '#platform/service-kit';
import { readJsonBody } from '../http/body-reader';
import { checkBodyText } from '../http/input-text';
import { commonHeaders, sendError, sendJson } from '../http/respond';
import { RouteTable } from '../http/route-table';
import { validateBody } from '../http/validate-body';
import type { AdminRoute } from './admin-route';

/** Admin API (architecture section 8): route → admin token → body → validation → handler, same envelope as the public API. */
export function createAdminPipeline(deps: { routes: AdminRoute[]; adminToken: string; docsUrl: string; basePath: string }) {
  const table = new RouteTable(deps.routes);
  const expected = createHash('sha256').update(deps.adminToken).digest();

  return function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newRequestId();
    return runWithLogContext({ requestId, correlationId: requestId }, () => handleInContext(req, res, requestId), req.headers.traceparent ?? null, {
      name: `${req.method} /admin`,
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method ?? '', 'svc.request_id': requestId },
    });
  };

  async function handleInContext(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    commonHeaders(res, requestId);
    res.setHeader('traceparent', currentTraceparent() ?? '');
    try {
      const url = new URL((req as { originalUrl?: string }).originalUrl ?? req.url ?? '/', 'http://admin.invalid');
      const path = url.pathname.startsWith(deps.basePath + '/') ? url.pathname.slice(deps.basePath.length) : null;
      const match = path === null ? null : table.match(req.method ?? '', path);
      if (!match) throw new DomainError('route_not_found', `No endpoint ${req.method} ${url.pathname}.`);
      // The route template for the latency histogram (http-metrics.ts), not the raw path.
      const locals = (res as ServerResponse & { locals?: Record<string, unknown> }).locals;
      if (locals) locals.routeLabel = deps.basePath + match.route.path;
      const header = req.headers.authorization ?? '';
      const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '';
      const given = createHash('sha256').update(token).digest();
      if (!token || !timingSafeEqual(given, expected)) throw new DomainError('invalid_api_key', 'Missing or wrong admin token.');
      const raw = await readJsonBody(req, res);
      checkBodyText(raw);
      const body = match.route.body ? validateBody(match.route.body, raw) : raw;
      const result = await match.route.handle({ requestId, params: match.params, query: url.searchParams, body, caller: { requestId } });
      sendJson(res, result.status, result.body);
    } catch (error) {
      sendError(res, error, requestId, deps.docsUrl);
    }
  }
}
