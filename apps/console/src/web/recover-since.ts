/**
 * The recover form's `since` (a datetime-local field, read as UTC since the console does not know the
 * reader's zone, and labelled so): `YYYY-MM-DDTHH:MM` or with seconds, as the ISO instant the API
 * takes; null when it is not one. Its range (7 days, not in the future) is the dispatcher's rule.
 */
export function sinceFromForm(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value.trim())) return null;
  const text = value.trim();
  const at = new Date(`${text.length === 16 ? `${text}:00` : text}Z`);
  // A day or hour out of range (the 30th of February) does not come back as written.
  return Number.isFinite(at.getTime()) && at.toISOString().startsWith(text.slice(0, 16)) ? at.toISOString() : null;
}

/** The form's default: 24 hours before `now`, as the field shows it (UTC, to the minute). */
export function defaultSince(now: Date): string {
  return new Date(now.getTime() - 24 * 3600 * 1000).toISOString().slice(0, 16);
}
