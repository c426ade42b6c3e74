import { APP_EVENT_TYPES, type AppEventType, type PublicEventEnvelope } from '#platform/contracts';
import { html, type SafeHtml } from './html';
import { readableTime } from './readable-time';

/** The type a query string asks for: anything else is "any", so an old or hand-made link still opens. */
export function eventTypeFilter(value: unknown): AppEventType | null {
  return APP_EVENT_TYPES.find((type) => type === value) ?? null;
}

/** The list's own address with its filter and a cursor: the next page keeps the filter. */
export function eventsHref(appId: string, type: AppEventType | null, cursor: string | null = null): string {
  const query = new URLSearchParams();
  if (type) query.set('type', type);
  if (cursor) query.set('cursor', cursor);
  const search = query.toString();
  return `/apps/${appId}/events${search ? `?${search}` : ''}`;
}

/** The app's events, newest first: a GET form by type (works without script), each event with its data as delivered, the next page link. */
export function eventsPage(appId: string, type: AppEventType | null, events: PublicEventEnvelope[], nextCursor: string | null, now: Date): SafeHtml {
  return html`<p><a href="/apps/${appId}">Back to the app</a> · <a href="/apps/${appId}/webhooks">Webhook endpoints</a></p>
    <p>What happened to this app in the last 30 days, newest first, as webhook deliveries carry it (also when no endpoint subscribed).</p>
    <form method="get" action="/apps/${appId}/events" class="filters">
      <div>
        <label for="type">Type</label>
        <select id="type" name="type">
          <option value="">any</option>
          ${APP_EVENT_TYPES.map((t) => html`<option value="${t}" ${t === type ? html`selected` : null}>${t}</option>`)}
        </select>
      </div>
      <button type="submit">Filter</button>
    </form>
    ${
      events.length === 0
        ? html`<p>No events${type ? html` of type ${type}` : null} in the last 30 days.</p>`
        : html`<table class="stack" aria-label="Events">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Type</th>
                <th scope="col">Data</th>
              </tr>
            </thead>
            <tbody>
              ${events.map(
                (e) =>
                  html`<tr>
                    <td data-label="Event"><code>${e.id}</code><br /><small>${readableTime(new Date(e.created * 1000), now)}</small></td>
                    <td data-label="Type">${e.type}</td>
                    <td data-label="Data">
                      <details>
                        <summary>data</summary>
                        <pre>${JSON.stringify(e.data, null, 2)}</pre>
                      </details>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    ${nextCursor ? html`<p><a href="${eventsHref(appId, type, nextCursor)}" rel="next">Older events</a></p>` : null}`;
}
