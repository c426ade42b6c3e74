import { MAX_ACTIVE_KEYS_PER_ENVIRONMENT, SCOPES, type ApiKeyListing, type CreatedApiKey } from '#platform/contracts';
import { html, type SafeHtml } from './html';
import { changeAction, type Viewer } from './layout';
import { readableTime, readableTimeOr } from './readable-time';

/** Active, revoked, or past its expiry at `now`. */
function keyState(key: ApiKeyListing, now: Date): 'active' | 'revoked' | 'expired' {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt && new Date(key.expiresAt) <= now) return 'expired';
  return 'active';
}

export const ROTATION_RULE = `Each environment holds at most ${MAX_ACTIVE_KEYS_PER_ENVIRONMENT} active keys, so a key can be rotated without downtime: create the new key, move your code to it, then revoke the old one.`;

/** The keys page: each key as the admin API lists it (never the key itself), revoke, and the form to create one. */
export function apiKeysPage(appId: string, viewer: Viewer, keys: ApiKeyListing[], now: Date): SafeHtml {
  return html`<p><a href="/apps/${appId}">Back to the app</a></p>
    <p>${ROTATION_RULE}</p>
    <table>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Environment</th>
          <th scope="col">Scopes</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Expires</th>
          <th scope="col">State</th>
          <th scope="col"><span class="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        ${keys.map((key) => {
          const state = keyState(key, now);
          return html`<tr aria-label="Key ${key.prefix}">
            <td data-label="Key"><code>${key.prefix}</code><br /><small>${key.id}</small></td>
            <td data-label="Environment">${key.environment}</td>
            <td data-label="Scopes">${key.scopes.join(', ')}</td>
            <td data-label="Created">${readableTime(key.createdAt, now)}</td>
            <td data-label="Last used">${readableTimeOr(key.lastUsedAt, now, 'never')}</td>
            <td data-label="Expires">${readableTimeOr(key.expiresAt, now, 'never')}</td>
            <td data-label="State">${state}${key.revokedAt ? html` ${readableTime(key.revokedAt, now)}` : null}</td>
            <td data-label="Actions">
              ${
                state === 'active'
                  ? html`<form class="inline" method="post" action="${changeAction(`/apps/${appId}/keys/${key.id}/revoke`, viewer.csrfToken)}">
                      <button type="submit" aria-label="Revoke ${key.prefix}">Revoke</button>
                    </form>`
                  : null
              }
            </td>
          </tr>`;
        })}
      </tbody>
    </table>
    <h2>Create a key</h2>
    <form method="post" action="${changeAction(`/apps/${appId}/keys`, viewer.csrfToken)}">
      <label for="environment">Environment</label>
      <select id="environment" name="environment">
        <option value="sandbox">sandbox</option>
        <option value="live">live</option>
      </select>
      <fieldset>
        <legend>Scopes</legend>
        ${SCOPES.map((scope) => html`<label><input type="checkbox" name="scopes" value="${scope}" checked /> ${scope}</label>`)}
      </fieldset>
      <label for="expires-on">Expires on (optional; at 00:00 UTC that day)</label>
      <input id="expires-on" name="expiresOn" type="date" />
      <button type="submit">Create key</button>
    </form>`;
}

/** The new key, shown this once, with a button that copies it. */
export function createdKeyPage(appId: string, created: CreatedApiKey, now: Date): SafeHtml {
  return html`<p class="notice" role="status">
      A ${created.environment} key was created${created.expiresAt ? html`; it expires ${readableTime(created.expiresAt, now)}` : null}.
    </p>
    <label for="api-key">API key (shown once: copy it now)</label>
    <input id="api-key" type="text" readonly value="${created.key}" />
    <button type="button" data-copy="api-key">Copy</button>
    <p>Scopes: ${created.scopes.join(', ')}</p>
    <p><a href="/apps/${appId}/keys">Back to the keys</a></p>`;
}
