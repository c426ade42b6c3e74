import type { WebhookDeliveryAttempt, WebhookDeliveryDetail, WebhookRequestHeader } from '#platform/contracts';
import { html, type SafeHtml } from './html';
import { readableTime } from './readable-time';

/** The event body as people read it: indented JSON (it is the platform's own JSON envelope), or as stored if it is not JSON. */
function prettyBody(payload: string): string {
  try {
    return JSON.stringify(JSON.parse(payload), null, 2);
  } catch {
    return payload;
  }
}

function headersTable(headers: WebhookRequestHeader[], label: string): SafeHtml {
  return html`<table aria-label="${label}">
    <thead>
      <tr>
        <th scope="col">Header</th>
        <th scope="col">Value</th>
      </tr>
    </thead>
    <tbody>
      ${headers.map(
        (h) =>
          html`<tr>
            <th scope="row" data-label="Header"><code>${h.name}</code></th>
            <td data-label="Value"><code>${h.value}</code></td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** What came back: the status, or why there was none. */
function answer(a: WebhookDeliveryAttempt): string {
  return [a.responseStatus === null ? null : `HTTP ${a.responseStatus}`, a.error].filter((part) => part !== null).join(' · ') || a.outcome;
}

/**
 * One delivery: the event body and the request headers it was sent with (the signature headers
 * included), then every attempt with its time, answer, duration and the first 2 KiB of the response.
 * Bodies, headers and excerpts are kept 7 days (ADR 0220); past that the page says so.
 */
export function deliveryDetailPage(appId: string, detail: WebhookDeliveryDetail, now: Date): SafeHtml {
  const { delivery: d, payload, attempts } = detail;
  const sent = attempts.filter((a) => a.requestHeaders !== null);
  const latest = sent[sent.length - 1];
  return html`<p><a href="/apps/${appId}/webhook-deliveries">All deliveries</a></p>
    <dl>
      <dt>Event</dt>
      <dd><code>${d.eventId}</code> (${d.eventType})</dd>
      <dt>Endpoint</dt>
      <dd>
        <a href="/apps/${appId}/webhook-deliveries?endpoint=${d.subscriptionId}"><code>${d.subscriptionId}</code></a>
      </dd>
      <dt>Status</dt>
      <dd>${d.status}${d.nextAttemptAt ? html`, next attempt ${readableTime(d.nextAttemptAt, now)}` : null}</dd>
      <dt>Created</dt>
      <dd>${readableTime(d.createdAt, now)}</dd>
    </dl>
    <section aria-labelledby="delivery-body">
      <h2 id="delivery-body">Event body</h2>
      ${payload === null ? html`<p>The body is kept for 30 days after its event; this one's is gone.</p>` : html`<pre><code>${prettyBody(payload)}</code></pre>`}
    </section>
    <section aria-labelledby="delivery-headers">
      <h2 id="delivery-headers">Request headers</h2>
      ${
        latest
          ? html`<p>As sent at attempt ${latest.attempt}, ${readableTime(latest.startedAt, now)}. Each attempt is signed anew at its own time.</p>
              ${headersTable(latest.requestHeaders ?? [], `Request headers of attempt ${latest.attempt}`)}
              ${sent.slice(0, -1).map(
                (a) =>
                  html`<details>
                    <summary>Headers of attempt ${a.attempt}</summary>
                    ${headersTable(a.requestHeaders ?? [], `Request headers of attempt ${a.attempt}`)}
                  </details>`,
              )}`
          : html`<p>No request headers to show: no request was sent yet, or its headers are past their 7 days.</p>`
      }
    </section>
    <section aria-labelledby="delivery-attempts">
      <h2 id="delivery-attempts">Attempts</h2>
      <table aria-label="Attempts">
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Started</th>
            <th scope="col">Answer</th>
            <th scope="col">Duration</th>
            <th scope="col">Response (first 2 KiB)</th>
          </tr>
        </thead>
        <tbody>
          ${attempts.map(
            (a) =>
              html`<tr aria-label="Attempt ${a.attempt}">
                <td data-label="Attempt">${a.attempt}</td>
                <td data-label="Started">${readableTime(a.startedAt, now)}</td>
                <td data-label="Answer">${answer(a)}</td>
                <td data-label="Duration">${a.durationMs} ms</td>
                <td data-label="Response (first 2 KiB)">
                  ${a.responseExcerpt ? html`<pre>${a.responseExcerpt}</pre>` : a.responseExcerpt === '' ? 'empty body' : ''}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </section>`;
}
