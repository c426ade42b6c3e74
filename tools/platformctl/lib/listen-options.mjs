/** What `platformctl listen` checks in its options before connecting (pure, so it is unit-tested). */
import { usageError } from './cli.mjs';

/** The types a listen session can receive (the dispatcher's list; webhook.test goes to one endpoint only). */
export const LISTEN_EVENT_TYPES = ['message.received', 'message.status', 'consent.updated', 'app.status_changed'];

/** `--events a,b`: known types, no repeats, sorted (the session's identity); absent → every type. */
export function parseEventsOption(raw) {
  if (raw === undefined) return [...LISTEN_EVENT_TYPES].sort();
  const asked = raw
    .split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  const unknown = asked.filter((type) => !LISTEN_EVENT_TYPES.includes(type));
  if (asked.length === 0 || unknown.length > 0)
    throw usageError(`--events takes a comma-separated list of ${LISTEN_EVENT_TYPES.join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`);
  return [...new Set(asked)].sort();
}

/** `--forward-to`: an absolute http:// or https:// URL (a local app; no public address needed). */
export function parseForwardTo(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(`--forward-to must be an absolute URL such as http://localhost:4242/webhooks, not ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw usageError('--forward-to must be an http:// or https:// URL');
  return url.toString();
}

/** The key: a sandbox key (`qk_sb_…`); a live key is refused before anything is sent. */
export function checkListenKey(key) {
  if (!key) throw usageError('an API key is needed: --key qk_sb_… or PLATFORM_API_KEY');
  if (key.startsWith('qk_live_')) return { refused: 'platformctl listen takes a sandbox key (qk_sb_…); live keys are refused.' };
  return { refused: null };
}
