import { AVATAR_MAX_BYTES, BUSINESS_PROFILE_LIMITS as LIMITS, type BusinessProfile } from '#platform/contracts';
import { html, type SafeHtml } from './html';
import { changeAction, type Viewer } from './layout';
import { readableTime } from './readable-time';

/** The profile as users see it beside the app's messages, and the form that edits it (the avatar through the media flow). */
export function businessProfilePage(appId: string, viewer: Viewer, profile: BusinessProfile, now: Date): SafeHtml {
  return html`<p><a href="/apps/${appId}">Back to the app</a></p>
    <dl>
      <dt>Handle</dt>
      <dd>${profile.handle}</dd>
      <dt>Avatar</dt>
      <dd>${profile.avatarUrl ? html`<a href="${profile.avatarUrl}">The current avatar</a>` : 'none'}</dd>
      <dt>Domain</dt>
      <dd>${profile.domain ?? 'none'}</dd>
      <dt>Verification</dt>
      <dd>${profile.verificationStatus}${profile.verifiedAt ? html` since ${readableTime(profile.verifiedAt, now)}` : ''}</dd>
      <dt>Updated</dt>
      <dd>${readableTime(profile.updatedAt, now)}</dd>
    </dl>
    <h2>Edit the profile</h2>
    <form method="post" action="${changeAction(`/apps/${appId}/profile`, viewer.csrfToken)}" enctype="multipart/form-data">
      <label for="display-name">Display name</label>
      <input
        id="display-name"
        name="displayName"
        type="text"
        required
        minlength="${LIMITS.displayName.min}"
        maxlength="${LIMITS.displayName.max}"
        value="${profile.displayName}"
      />
      <label for="about">About</label>
      <textarea id="about" name="about" rows="4" maxlength="${LIMITS.aboutMax}">${profile.about ?? ''}</textarea>
      <label for="website-url">Website URL</label>
      <input id="website-url" name="websiteUrl" type="text" inputmode="url" maxlength="${LIMITS.websiteUrlMax}" value="${profile.websiteUrl ?? ''}" />
      <label for="category">Category</label>
      <input id="category" name="category" type="text" maxlength="${LIMITS.category.max}" value="${profile.category ?? ''}" />
      <label for="avatar">New avatar (a JPEG, PNG, WebP or GIF image of at most ${AVATAR_MAX_BYTES / 1024 / 1024} MiB; optional)</label>
      <input id="avatar" name="avatar" type="file" accept="image/jpeg,image/png,image/webp,image/gif" />
      ${profile.avatarUrl ? html`<label><input type="checkbox" name="removeAvatar" value="yes" /> Remove the avatar</label>` : null}
      <button type="submit">Save profile</button>
    </form>`;
}
