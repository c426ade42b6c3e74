import { html, type SafeHtml } from './html';

const FORMAT = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** A moment as people read it (`1 May 2026, 10:00 UTC`), exact in its datetime attribute. */
export function readableTime(at: Date): SafeHtml {
  return html`<time datetime="${at.toISOString()}">${FORMAT.format(at)} UTC</time>`;
}
