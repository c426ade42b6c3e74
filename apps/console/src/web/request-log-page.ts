import { REQUEST_STATUS_CLASSES, type ApiKeyListing, type RequestLogDetail, type RequestLogEntry, type RequestStatusClass } from '#platform/contracts';
import { html, type SafeHtml } from './html';
import { readableTime } from './readable-time';

/** The request log's filters as the GET form sends them; null is "any". */
export interface RequestLogFilters {
  statusClass: RequestStatusClass | null;
  path: string | null;
  pathMatch: 'prefix' | 'exact';
  keyPrefix: string | null;
}

/** The filters of a query string: unknown values are "any", so an old or hand-made link still opens. */
export function requestLogFilters(query: Record<string, unknown>): RequestLogFilters {
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
  const status = text(query.status);
  return {
    statusClass: REQUEST_STATUS_CLASSES.find((c) => c === status) ?? null,
    path: text(query.path),
    pathMatch: query.match === 'exact' ? 'exact' : 'prefix',
    keyPrefix: text(query.key),
  };
}

/** The list's own address with its filters (and a cursor): the next page link keeps the filters. */
export function requestLogHref(appId: string, filters: RequestLogFilters, cursor: string | null = null): string {
  const query = new URLSearchParams();
  if (filters.statusClass) query.set('status', filters.statusClass);
  if (filters.path) {
    query.set('path', filters.path);
    query.set('match', filters.pathMatch);
  }
  if (filters.keyPrefix) query.set('key', filters.keyPrefix);
  if (cursor) query.set('cursor', cursor);
  const search = query.toString();
  return `/apps/${appId}/requests${search ? `?${search}` : ''}`;
}

/** Shares of the list's width (the path takes the rest): a fixed layout that never grows past the page. */
const COLUMN_WIDTHS = [13, 7, null, 6, 13, 11, 8, 20] as const;

const selected = (yes: boolean) => (yes ? html`selected` : null);

/** The list: a GET form of filters (works without script), the table (rows stack at phone width), the next page link. */
export function requestLogPage(
  appId: string,
  filters: RequestLogFilters,
  keys: ApiKeyListing[],
  entries: RequestLogEntry[],
  nextCursor: string | null,
  now: Date,
): SafeHtml {
  return html`<p><a href="/apps/${appId}">Back to the app</a></p>
    <p>Every call to the public API with this app's keys in the last 7 days, newest first. No request or response bodies and no keys are kept.</p>
    <form method="get" action="/apps/${appId}/requests" class="filters">
      <div>
        <label for="status">Status</label>
        <select id="status" name="status">
          <option value="">any</option>
          ${REQUEST_STATUS_CLASSES.map((c) => html`<option value="${c}" ${selected(c === filters.statusClass)}>${c}</option>`)}
        </select>
      </div>
      <div>
        <label for="path">Path</label>
        <input id="path" name="path" type="text" value="${filters.path ?? ''}" placeholder="/messages" />
      </div>
      <div>
        <label for="match">Path match</label>
        <select id="match" name="match">
          <option value="prefix" ${selected(filters.pathMatch === 'prefix')}>starts with</option>
          <option value="exact" ${selected(filters.pathMatch === 'exact')}>is exactly</option>
        </select>
      </div>
      <div>
        <label for="key">Key</label>
        <select id="key" name="key">
          <option value="">any</option>
          ${keys.map((k) => html`<option value="${k.prefix}" ${selected(k.prefix === filters.keyPrefix)}>${k.prefix} (${k.environment}${k.revokedAt ? ', revoked' : ''})</option>`)}
        </select>
      </div>
      <button type="submit">Filter</button>
    </form>
    ${
      entries.length === 0
        ? html`<p>No requests${filters.statusClass || filters.path || filters.keyPrefix ? ' match these filters' : ''}.</p>`
        : html`<table class="stack">
            <colgroup>
              ${COLUMN_WIDTHS.map((w) => (w === null ? html`<col />` : html`<col style="width: ${w}%" />`))}
            </colgroup>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Method</th>
                <th scope="col">Path</th>
                <th scope="col">Status</th>
                <th scope="col">Error</th>
                <th scope="col">Key</th>
                <th scope="col">Duration</th>
                <th scope="col">Request id</th>
              </tr>
            </thead>
            <tbody>
              ${entries.map(
                (e) =>
                  html`<tr>
                    <td data-label="Time">${readableTime(e.at, now)}</td>
                    <td data-label="Method">${e.method}</td>
                    <td data-label="Path"><code>${e.path}</code></td>
                    <td data-label="Status">${e.status}</td>
                    <td data-label="Error">${e.errorCode ?? ''}</td>
                    <td data-label="Key"><code>${e.keyPrefix ?? ''}</code></td>
                    <td data-label="Duration">${e.durationMs} ms</td>
                    <td data-label="Request id"><a href="/apps/${appId}/requests/${e.requestId}">${e.requestId}</a></td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${nextCursor ? html`<p><a href="${requestLogHref(appId, filters, nextCursor)}" rel="next">Older requests</a></p>` : null}`;
}

/** One request: what it was and, for a refusal, the error envelope the client got. */
export function requestDetailPage(appId: string, entry: RequestLogDetail, now: Date): SafeHtml {
  return html`<p><a href="/apps/${appId}/requests">All requests</a></p>
    <dl>
      <dt>Time</dt>
      <dd>${readableTime(entry.at, now)}</dd>
      <dt>Request</dt>
      <dd>${entry.method} <code>${entry.path}</code></dd>
      <dt>Status</dt>
      <dd>${entry.status}${entry.errorCode ? ` ${entry.errorCode}` : ''}</dd>
      <dt>Key</dt>
      <dd><code>${entry.keyPrefix ?? 'none'}</code></dd>
      <dt>Duration</dt>
      <dd>${entry.durationMs} ms</dd>
      <dt>Request id</dt>
      <dd><code>${entry.requestId}</code></dd>
    </dl>
    ${
      entry.errorEnvelope
        ? html`<h2>Error envelope</h2>
            <p>The body the client got:</p>
            <pre aria-label="Error envelope"><code>${JSON.stringify(entry.errorEnvelope, null, 2)}</code></pre>`
        : null
    }`;
}
