import { PUBLIC_EVENT_TYPES, type EndpointHealthSummary, type WebhookEndpoint } from '#platform/contracts';
import { share } from './charts/overview-charts';
import { html, type SafeHtml } from './html';
import { changeAction, type Viewer } from './layout';
import { readableTime } from './readable-time';
import { defaultSince } from './recover-since';

/** The event types an endpoint may subscribe to (webhook.test goes to one endpoint on request only). */
export const SUBSCRIBABLE = PUBLIC_EVENT_TYPES.filter((type) => type !== 'webhook.test');

/** p95 as the dispatcher measures it: the bound of the duration bucket holding it. */
function p95Text(h: EndpointHealthSummary): string {
  if (h.p95BeyondLastBound) return 'over 10 s';
  return h.p95Ms === null ? '–' : `≤ ${h.p95Ms.toLocaleString('en-GB')} ms`;
}

/** Each endpoint's last 24 hours: deliveries that ended, the share delivered, p95 response time, the last error. */
export function endpointHealthTable(endpoints: WebhookEndpoint[], health: EndpointHealthSummary[], now: Date): SafeHtml {
  const byId = new Map(health.map((h) => [h.endpointId, h]));
  return html`<h2 id="health">Health, last 24 hours</h2>
    <table class="stack" role="table" aria-labelledby="health">
      <thead role="rowgroup">
        <tr role="row">
          <th scope="col" role="columnheader">Endpoint</th>
          <th scope="col" role="columnheader">Deliveries</th>
          <th scope="col" role="columnheader">Delivered</th>
          <th scope="col" role="columnheader">p95 response time</th>
          <th scope="col" role="columnheader">Last error</th>
        </tr>
      </thead>
      <tbody role="rowgroup">
        ${endpoints.map((e) => {
          const h = byId.get(e.id);
          return html`<tr role="row">
            <th scope="row" role="rowheader" data-label="Endpoint">${e.url}</th>
            <td role="cell" data-label="Deliveries">${h?.deliveries ?? 0}</td>
            <td role="cell" data-label="Delivered">${h ? share(h.delivered, h.deliveries) : '–'}</td>
            <td role="cell" data-label="p95 response time">${h ? p95Text(h) : '–'}</td>
            <td role="cell" data-label="Last error">
              ${h?.lastError ? html`${h.lastError.error}<br /><small>${readableTime(h.lastError.at, now)}</small>` : 'none'}
            </td>
          </tr>`;
        })}
      </tbody>
    </table>`;
}

/** The endpoints page: the list with each endpoint's state and actions, their health, their settings, and the form to add one. */
export function endpointsPage(appId: string, viewer: Viewer, endpoints: WebhookEndpoint[], health: EndpointHealthSummary[], now: Date): SafeHtml {
  return html`<p>
      <a href="/apps/${appId}">Back to the app</a> · <a href="/apps/${appId}/webhook-deliveries">Deliveries</a> ·
      <a href="/apps/${appId}/events">Events</a>
    </p>
    <table>
      <thead>
        <tr>
          <th scope="col">URL</th>
          <th scope="col">State</th>
          <th scope="col">Events</th>
          <th scope="col"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${endpoints.map(
          (e) =>
            html`<tr>
              <td data-label="URL">${e.url}<br /><small>${e.id} · added ${readableTime(e.createdAt, now)}</small></td>
              <td data-label="State">
                ${e.state}${e.disabledAt ? html`<br /><small>disabled ${readableTime(e.disabledAt, now)}: every delivery failed for 3 days</small>` : null}${e.lastVerificationError ? html`<br /><small>${e.lastVerificationError}</small>` : null}
              </td>
              <td data-label="Events">${e.events.join(', ')}</td>
              <td data-label="Actions">
                <form class="inline" method="post" action="${changeAction(`/apps/${appId}/webhooks/${e.id}/test`, viewer.csrfToken)}">
                  <button type="submit" aria-label="Send a test event to ${e.url}">Send test</button>
                </form>
                <form class="inline" method="post" action="${changeAction(`/apps/${appId}/webhooks/${e.id}/delete`, viewer.csrfToken)}">
                  <button type="submit" aria-label="Delete ${e.url}">Delete</button>
                </form>
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${endpoints.length > 0 ? endpointHealthTable(endpoints, health, now) : null}
    ${endpoints.map(
      (e) =>
        html`<section aria-label="Manage ${e.url}">
          <h2>${e.url}</h2>
          <form method="post" action="${changeAction(`/apps/${appId}/webhooks/${e.id}/verify`, viewer.csrfToken)}">
            <label for="verify-${e.id}">Verify token for ${e.url}</label>
            <input id="verify-${e.id}" name="verifyToken" type="text" required />
            <button type="submit">Verify again</button>
          </form>
          <form method="post" action="${changeAction(`/apps/${appId}/webhooks/${e.id}/events`, viewer.csrfToken)}">
            <fieldset>
              <legend>Events sent to ${e.url}</legend>
              ${SUBSCRIBABLE.map((type) => html`<label><input type="checkbox" name="events" value="${type}" ${e.events.includes(type) ? html`checked` : null} /> ${type}</label>`)}
            </fieldset>
            <button type="submit">Save events</button>
          </form>
          <form method="post" action="${changeAction(`/apps/${appId}/webhooks/${e.id}/rotate-secret`, viewer.csrfToken)}">
            <button type="submit" aria-label="Rotate the signing secret of ${e.url}">Rotate secret</button>
          </form>
          <form method="post" action="${changeAction(`/apps/${appId}/webhooks/${e.id}/recover`, viewer.csrfToken)}">
            <label for="since-${e.id}">Recover the events ${e.url} missed since (UTC)</label>
            <input id="since-${e.id}" name="since" type="datetime-local" required value="${defaultSince(now)}" />
            <p><small>Delivers again every event since then (at most 7 days ago) that it subscribes to and did not receive.</small></p>
            <button type="submit" aria-label="Recover the events ${e.url} missed">Recover</button>
          </form>
        </section>`,
    )}
    <h2>Add an endpoint</h2>
    <form method="post" action="${changeAction(`/apps/${appId}/webhooks`, viewer.csrfToken)}">
      <label for="url">Endpoint URL</label>
      <input id="url" name="url" type="text" inputmode="url" required placeholder="https://example.com/webhooks" />
      <label for="verify-token">Verify token</label>
      <input id="verify-token" name="verifyToken" type="text" required />
      <fieldset>
        <legend>Events</legend>
        ${SUBSCRIBABLE.map((type) => html`<label><input type="checkbox" name="events" value="${type}" checked /> ${type}</label>`)}
      </fieldset>
      <button type="submit">Add endpoint</button>
    </form>`;
}
