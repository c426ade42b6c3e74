import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BlockList } from 'node:net';
import { BLOCKED_APP_STATUSES, LIVE_APP_STATUSES, newRequestId, PUBLIC_BASE_PATH, SUPPORTED_API_VERSIONS, type ErrorEnvelope } from '#platform/contracts';
import type { Clock } from '#platform/clock';
import { DomainError, isDomainError } from '#platform/errors';
import { SpanKind } from '@opentelemetry/api';
import { addLogFields, bindLogContext, currentTraceparent, log, nameCurrentSpan, runWithLogContext, type ServiceMetrics } from '#platform/service-kit';
import type { ApiKeyCache, ApiKeyRecord } from '../api-keys/api-key.cache';
import { createKeyAuthentication } from './key-authentication';
import type { AppAccess, AppAccessCache } from '../app-status/app-access.cache';
import { readJsonBody } from '../http/body-reader';
import { checkBodyText, checkUrlText } from '../http/input-text';
import { commonHeaders, sendError, sendJson } from '../http/respond';
import { RouteTable } from '../http/route-table';
import { validateBody } from '../http/validate-body';
import { bodyHash, checkIdempotencyKey } from '../idempotency/idempotency-key';
import type { ReferenceRoute } from '../openapi/reference-routes';
import type { RateLimiter } from '../rate-limits/rate-limiter';
import type { RequestLogRecorder } from '../request-log/request-log.recorder';
import { PATH_ID_MAX_LENGTH, type PublicResult, type PublicRoute } from './public-route';
import type { ReplayWhenLimited } from './replay-when-limited';

export interface PublicPipelineDeps {
  routes: PublicRoute[];
  keys: ApiKeyCache;
  apps: AppAccessCache;
  limiter: RateLimiter;
  /** Replays of keys this replica answered, for limited requests (step 4): never a call to a service. */
  replays: ReplayWhenLimited;
  /** Failed authentication per client address (architecture section 3, step 4), checked before any key lookup. */
  authFailures: RateLimiter;
  trustedProxies: BlockList;
  clock: Clock;
  docsUrl: string;
  metrics: ServiceMetrics;
  /** GETs that need no key: the OpenAPI document and the reference page. */
  reference?: ReferenceRoute[];
  /** The body must arrive within this many milliseconds of the read starting. */
  bodyTimeoutMs?: number;
  /** Every answered request of an app, recorded off the request path (docs/adr/0216-request-log-off-the-request-path.md). */
  requestLog?: RequestLogRecorder;
}

/**
 * The gateway pipeline of architecture section 3, in its order: route → key → app status, environment,
 * scope → rate limit → body (size, type, JSON) → validation → the owning service.
 */
export function createPublicPipeline(deps: PublicPipelineDeps) {
  const table = new RouteTable(deps.routes);
  const authenticate = createKeyAuthentication(deps);

  return function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = newRequestId();
    // Every line of the request carries its id (and app id once known) and the trace: the caller's
    // traceparent is continued when valid, otherwise the request starts a trace of its own.
    return runWithLogContext({ requestId, correlationId: requestId }, () => handleInContext(req, res, requestId), req.headers.traceparent ?? null, {
      name: `${req.method} ${PUBLIC_BASE_PATH}`,
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': req.method ?? '', 'svc.request_id': requestId },
    });
  };

  async function handleInContext(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const end = deps.metrics.httpDuration.startTimer();
    const started = performance.now();
    const atMs = deps.clock.nowMs();
    let routeLabel = 'unmatched';
    // What the request log keeps: the path, the key's app and prefix once found, the envelope of a refusal.
    let path: string | null = null;
    let found: { appId: string; prefix: string } | null = null;
    let refusal: { envelope: ErrorEnvelope; jsonLength: number } | null = null;
    if (deps.requestLog) {
      const requestLog = deps.requestLog;
      // 'close' also ends a stream whose client left; a request never answered has nothing to show.
      res.on('close', () => {
        if (path === null || !res.headersSent) return;
        const seen = { requestId, atMs, method: req.method ?? '', path, status: res.statusCode, durationMs: performance.now() - started, key: found, refusal };
        requestLog.record(seen, req.headers.authorization);
      });
    }
    res.on(
      'finish',
      bindLogContext(() => {
        const status = res.statusCode;
        end({ method: req.method ?? '', route: routeLabel, status: String(status) });
        log(status >= 500 ? 'warn' : 'info', 'request', {
          method: req.method,
          route: routeLabel,
          status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        });
      }),
    );
    commonHeaders(res, requestId);
    res.setHeader('traceparent', currentTraceparent() ?? '');
    // Until the app is known, show the limit with a full bucket so the headers are on every response.
    res.setHeader('RateLimit-Limit', String(deps.limiter.burst));
    res.setHeader('RateLimit-Remaining', String(deps.limiter.burst));
    try {
      const url = new URL(req.url ?? '/', 'http://gateway.invalid');
      const route = url.pathname.startsWith(PUBLIC_BASE_PATH + '/') ? url.pathname.slice(PUBLIC_BASE_PATH.length) : null;
      const reference = (req.method === 'GET' || req.method === 'HEAD') && route !== null ? deps.reference?.find((r) => r.path === route) : undefined;
      if (reference) {
        routeLabel = PUBLIC_BASE_PATH + reference.path;
        reference.handle(req, res);
        return;
      }
      // The public API's requests, answered or refused; the documents above need no key and are not logged.
      if (route !== null) path = url.pathname;
      const match = route === null ? null : table.match(req.method ?? '', route);
      if (!match) throw new DomainError('route_not_found', `No endpoint ${req.method} ${url.pathname}.`);
      // The route template (bounded label values), as clients know it.
      routeLabel = PUBLIC_BASE_PATH + match.route.path;
      nameCurrentSpan(`${req.method} ${routeLabel}`, { 'http.route': routeLabel });

      const requested = req.headers['svc-version'];
      if (requested !== undefined && !SUPPORTED_API_VERSIONS.includes(String(requested))) {
        throw DomainError.invalid([{ field: 'Svc-Version', issue: `unsupported version; use ${SUPPORTED_API_VERSIONS.join(', ')}` }]);
      }

      const key = await authenticate(req, res);
      found = key;
      addLogFields({ appId: key.appId });
      const app = await deps.apps.get(key.appId);
      if (!app) throw new DomainError('invalid_api_key');
      authorize(key, app, match.route);

      const caller = { requestId, appId: app.appId, keyEnvironment: key.environment };
      const rate = await deps.limiter.take(app.appId);
      res.setHeader('RateLimit-Remaining', String(rate.remaining));
      if (!rate.allowed) {
        // A refused request makes no call to any service: a replay comes from this replica's own record.
        const replay = await deps.replays.answer(match.route, req, res, app.appId, deps.bodyTimeoutMs);
        if (replay) {
          deps.metrics.idempotencyReplays.inc();
          sendJson(res, replay.status, replay.body, replay.headers);
          return;
        }
        throw DomainError.rateLimited(`Too many requests; wait ${rate.retryAfterSeconds} seconds.`, rate.retryAfterSeconds);
      }

      // Path ids and query values are checked here, once for every route, before any route reads them.
      checkUrlText(match.params, url.searchParams, PATH_ID_MAX_LENGTH);
      const raw = await readJsonBody(req, res, { timeoutMs: deps.bodyTimeoutMs });
      deps.keys.touch(key);
      // Step 6: the key is checked here; its record is kept by the owning service in the transaction
      // that carries the request out, which answers replays, 409 and 422 (see PublicRoute.idempotent).
      const idempotency = match.route.idempotent ? { key: checkIdempotencyKey(req.headers['idempotency-key']), bodyHash: bodyHash(raw) } : null;
      let body: unknown;
      let held: PublicResult | null = null;
      try {
        // Every string and member name, whatever the route: NUL, unpaired surrogates, __proto__.
        checkBodyText(raw);
        body = match.route.body ? validateBody(match.route.body, raw) : raw;
      } catch (invalid) {
        // The key is looked up before the body is validated: a key held by another body is 422 whatever this body is.
        if (idempotency && match.route.idempotent) held = await match.route.idempotent.heldKey(caller, app.appId, idempotency);
        if (!held) throw invalid;
      }
      const result =
        held ??
        (await match.route.handle({ requestId, params: match.params, query: url.searchParams, headers: req.headers, body, key, app, caller, idempotency }));
      if (result.stream) return await result.stream(res);
      if (idempotency) deps.replays.remember(match.route, app.appId, idempotency, result);
      if (result.headers?.['Idempotent-Replayed'] === 'true') {
        deps.metrics.idempotencyReplays.inc();
        // A replay is not charged (step 4).
        deps.limiter.refund(app.appId);
      }
      sendJson(res, result.status, result.body, result.headers);
    } catch (error) {
      if (isDomainError(error) && error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
      refusal = sendError(res, error, requestId, deps.docsUrl);
    }
  }
}

function authorize(key: ApiKeyRecord, app: AppAccess, route: PublicRoute): void {
  if (BLOCKED_APP_STATUSES.includes(app.status)) throw new DomainError('app_suspended', `The app is ${app.status}.`);
  if (key.environment === 'live' && !LIVE_APP_STATUSES.includes(app.status)) throw new DomainError('key_environment_mismatch');
  if (route.scope !== null && !key.scopes.includes(route.scope)) {
    throw new DomainError('insufficient_scope', `This call needs the ${route.scope} scope.`);
  }
}
