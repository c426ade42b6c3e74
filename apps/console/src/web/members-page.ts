import { html, type SafeHtml } from './html';
import { changeAction, type Viewer } from './layout';
import { readableTime } from './readable-time';

export interface MemberRow {
  email: string;
  role: string;
}

export interface WaitingInvitation {
  email: string;
  invited_by: string;
  invited_at: Date;
  expires_at: Date;
}

/** A one-button form of the members page, with the session's CSRF token in its action. */
function action(viewer: Viewer, path: string, email: string, label: string, text: string): SafeHtml {
  return html`<form class="inline" method="post" action="${changeAction(path, viewer.csrfToken)}">
    <input type="hidden" name="email" value="${email}" />
    <button type="submit" aria-label="${label}">${text}</button>
  </form>`;
}

/** The invitations whose link still works: to whom, who sent it and when; an owner may withdraw each. */
function waitingList(appId: string, viewer: Viewer, owner: boolean, waiting: WaitingInvitation[], now: Date): SafeHtml {
  return html`<h2>Invited</h2>
    <ul>
      ${waiting.map(
        (i) =>
          html`<li>
            <strong>${i.email}</strong>, invited by ${i.invited_by} ${readableTime(new Date(i.invited_at), now)}; the link works until
            ${readableTime(new Date(i.expires_at), now)}.
            ${owner ? action(viewer, `/apps/${appId}/invitations/withdraw`, i.email, `Withdraw the invitation of ${i.email}`, 'Withdraw') : null}
          </li>`,
      )}
    </ul>`;
}

/** The members page: who is a member, the invitations waiting, and an owner's forms. */
export function membersPage(appId: string, viewer: Viewer, owner: boolean, members: MemberRow[], waiting: WaitingInvitation[], now: Date): SafeHtml {
  return html`<p><a href="/apps/${appId}">Back to the app</a></p>
    <table>
      <thead>
        <tr>
          <th scope="col">Email</th>
          <th scope="col">Role</th>
          ${owner ? html`<th scope="col"><span class="visually-hidden">Actions</span></th>` : null}
        </tr>
      </thead>
      <tbody>
        ${members.map(
          (m) =>
            html`<tr>
              <td data-label="Email">${m.email}</td>
              <td data-label="Role">${m.role}</td>
              ${
                owner
                  ? html`<td data-label="Actions">
                      ${m.role === 'member' ? action(viewer, `/apps/${appId}/members/owner`, m.email, `Make ${m.email} an owner`, 'Make owner') : null}
                      ${action(viewer, `/apps/${appId}/members/remove`, m.email, `Remove ${m.email}`, 'Remove')}
                    </td>`
                  : null
              }
            </tr>`,
        )}
      </tbody>
    </table>
    ${waiting.length ? waitingList(appId, viewer, owner, waiting, now) : null}
    ${
      owner
        ? html`<h2>Invite someone</h2>
            <p>Inviting an address again replaces its earlier invitation: only the newest link works.</p>
            <form method="post" action="${changeAction(`/apps/${appId}/members`, viewer.csrfToken)}">
              <label for="invite-email">Email address to invite</label>
              <input id="invite-email" name="email" type="email" required />
              <button type="submit">Invite</button>
            </form>`
        : null
    }`;
}
