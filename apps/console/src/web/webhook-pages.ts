import { PUBLIC_EVENT_TYPES, type WebhookEndpoint } from '#platform/contracts';
import { html, type SafeHtml } from './html';
import { changeAction, type Viewer } from './layout';
import { readableTime } from './readable-time';

/** The event types an endpoint may subscribe to (webhook.test goes to one endpoint on request only). */
export const SUBSCRIBABLE = PUBLIC_EVENT_TYPES.filter((type) => type !== 'webhook.test');

/** The endpoints page: the list with each endpoint's state and actions, its settings, and the form to add one. */
export function endpointsPage(appId: string, viewer: Viewer, endpoints: WebhookEndpoint[], now: Date): SafeHtml {
  return html`<p><a href="/apps/${appId}">Back to the app</a> · <a href="/apps/${appId}/webhook-deliveries">Deliveries</a></p>
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
