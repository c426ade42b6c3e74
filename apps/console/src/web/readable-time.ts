import { html, type SafeHtml } from './html';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Up to this far from now a time reads as hours ago (or ahead); further, as a day and a clock time. */
const HOURS_SPAN = 6 * HOUR;
const DAY = 24 * HOUR;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
const two = (n: number) => String(n).padStart(2, '0');
const clock = (at: Date) => `${two(at.getUTCHours())}:${two(at.getUTCMinutes())} UTC`;
const utcDay = (at: Date) => Math.floor(at.getTime() / DAY);

/** The exact moment, to the millisecond, in UTC (`2026-05-01 14:05:07.123 UTC`): the title of every time. */
export function exactUtc(at: Date): string {
  return at.toISOString().replace('T', ' ').replace('Z', ' UTC');
}

/**
 * A moment as people read it, seen at `now`: "just now", "3 minutes ago", "in 2 hours", "today
 * 14:05 UTC", "yesterday 14:05 UTC", "tomorrow 09:00 UTC", "3 May, 14:05 UTC" this year, "3 May
 * 2025" further. Days and clock times are UTC's: the server does not know the reader's zone, and
 * says so.
 */
export function readableText(at: Date, now: Date): string {
  const ahead = at.getTime() - now.getTime();
  const distance = Math.abs(ahead);
  if (distance < MINUTE) return 'just now';
  if (distance < HOUR) return ahead < 0 ? `${plural(Math.floor(distance / MINUTE), 'minute')} ago` : `in ${plural(Math.floor(distance / MINUTE), 'minute')}`;
  if (distance < HOURS_SPAN) return ahead < 0 ? `${plural(Math.floor(distance / HOUR), 'hour')} ago` : `in ${plural(Math.floor(distance / HOUR), 'hour')}`;
  const days = utcDay(at) - utcDay(now);
  if (days === 0) return `today ${clock(at)}`;
  if (days === -1) return `yesterday ${clock(at)}`;
  if (days === 1) return `tomorrow ${clock(at)}`;
  const date = `${at.getUTCDate()} ${MONTHS[at.getUTCMonth()]}`;
  return at.getUTCFullYear() === now.getUTCFullYear() ? `${date}, ${clock(at)}` : `${date} ${at.getUTCFullYear()}`;
}

/** A moment as a `<time>`: readable text (readableText), the exact UTC moment in its title, machine-readable in datetime. */
export function readableTime(at: Date | string, now: Date): SafeHtml {
  const moment = typeof at === 'string' ? new Date(at) : at;
  return html`<time datetime="${moment.toISOString()}" title="${exactUtc(moment)}">${readableText(moment, now)}</time>`;
}

/** readableTime, or `otherwise` when there is no moment (never used, never expires). */
export function readableTimeOr(at: Date | string | null | undefined, now: Date, otherwise: string): SafeHtml | string {
  return at === null || at === undefined ? otherwise : readableTime(at, now);
}
