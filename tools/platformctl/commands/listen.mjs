import { randomBytes } from 'node:crypto';
import { CliError, EXIT, out, refused } from '../lib/cli.mjs';
import { checkListenKey, parseEventsOption, parseForwardTo } from '../lib/listen-options.mjs';
import { webhookDeliveryHeaders } from '../lib/delivery-signing.mjs';
import { ensureStateDir, readCursor, stateDir, stateFile, writeCursor } from '../lib/listen-state.mjs';
import { SseReader } from '../lib/sse-reader.mjs';

/** The local app's answer limit, as for a delivery. */
const ANSWER_TIMEOUT_MS = 10_000;
/** The gateway sends a comment every 15 s: this long without a byte means the connection is gone. */
const IDLE_TIMEOUT_MS = 45_000;
/** The cursor is saved at most this often: a kill loses at most this much progress, which only repeats events (at least once). */
const SAVE_EVERY_MS = 100;
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A `wd_` id for one forwarded request (each forward is a delivery of its own, like a replay). */
function deliveryId() {
  let time = '';
  for (let t = Date.now(), i = 0; i < 10; i++, t = Math.floor(t / 32)) time = CROCKFORD[t % 32] + time;
  return `wd_${time}${[...randomBytes(16)].map((byte) => CROCKFORD[byte % 32]).join('')}`;
}

function localTime(date = new Date()) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

const sleep = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Saves the cursor soon after it moves (not on every event), and at once on flush. */
function cursorSaver(file) {
  let pending = null;
  let timer = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending !== null) writeCursor(file, pending);
    pending = null;
  };
  return {
    save(cursor) {
      pending = cursor;
      timer ??= setTimeout(flush, SAVE_EVERY_MS);
    },
    flush,
  };
}

export default {
  name: ['listen'],
  summary: "Forward the app's events as they happen to a local URL, signed like webhook deliveries (sandbox keys; no public URL needed).",
  description: [
    'Opens an event stream from the platform (GET /platform/v1/listen) and POSTs each public event to',
    '--forward-to with the body and headers a registered endpoint gets (Svc-Signature, Svc-Event-Id, …,',
    'and the Standard Webhooks headers), signed with a secret printed at start and stable for the key.',
    'One line per event: time, type, event id, the local status and milliseconds. Ctrl-C stops; a dropped',
    'connection, or a run killed and started again within a day, resumes with the events that happened',
    'meanwhile (the cursor is kept in $XDG_STATE_HOME/platformctl, else ~/.local/state/platformctl, a folder',
    'only you can read). Counts against no endpoint limit.',
  ].join('\n'),
  options: {
    'forward-to': { type: 'string', required: true, placeholder: 'URL', description: 'local http:// or https:// URL to POST each event to' },
    events: {
      type: 'string',
      placeholder: 't1,t2',
      description: 'event types to receive (default: message.received, message.status, consent.updated, app.status_changed, template.status)',
    },
    'api-url': {
      type: 'string',
      env: 'PLATFORM_API_URL',
      default: 'http://localhost:3000/platform/v1',
      placeholder: 'URL',
      description: 'public API base URL',
    },
    key: { type: 'string', env: 'PLATFORM_API_KEY', placeholder: 'qk_sb_…', description: 'sandbox API key with the webhooks:manage scope' },
  },
  examples: [
    'platformctl listen --forward-to http://localhost:4242/webhooks --key qk_sb_…',
    'PLATFORM_API_KEY=qk_sb_… platformctl listen --forward-to http://localhost:4242/webhooks --events message.received,message.status',
  ],
  async run({ values }) {
    const forwardTo = parseForwardTo(values['forward-to']);
    const events = parseEventsOption(values.events);
    const key = values.key;
    const check = checkListenKey(key);
    if (check.refused) throw refused(check.refused);
    const streamUrl = `${values['api-url'].replace(/\/$/, '')}/listen?events=${events.join(',')}`;
    // Checked before connecting: a state folder that is not the user's own is a refusal at start, not mid-stream.
    const dir = stateDir();
    ensureStateDir(dir);
    const file = stateFile(key, events, dir);
    const saver = cursorSaver(file);
    let cursor = readCursor(file);
    let announced = false;
    let failures = 0;
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);

    /** One connection: returns when the stream ends (the client reconnects), throws a CliError on a refusal. */
    async function streamOnce() {
      const connection = new AbortController();
      const abortConnection = () => connection.abort();
      stop.signal.addEventListener('abort', abortConnection, { once: true });
      let idle = setTimeout(abortConnection, IDLE_TIMEOUT_MS);
      try {
        const res = await fetch(streamUrl, {
          headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...(cursor ? { 'last-event-id': cursor } : {}) },
          signal: connection.signal,
        });
        if (!res.ok) {
          /** @type {any} the error envelope, if the answer is one */
          const body = await res.json().catch(() => null);
          const reason = body?.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${res.status}`;
          if (res.status === 401 || res.status === 403) throw refused(`refused by the platform (${reason})`);
          if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429)
            throw new CliError(`the platform answered ${res.status} (${reason}); is --api-url ${values['api-url']} right?`);
          throw new Error(reason);
        }
        failures = 0;
        const reader = new SseReader();
        const decoder = new TextDecoder();
        let secret = null;
        for await (const chunk of res.body) {
          clearTimeout(idle);
          idle = setTimeout(abortConnection, IDLE_TIMEOUT_MS);
          for (const event of reader.push(decoder.decode(chunk, { stream: true }))) {
            if (event.event === 'session') {
              const opened = JSON.parse(event.data);
              secret = opened.secret;
              // Kept at once: a run killed before its first event must still resume from here, not from "now".
              cursor = opened.cursor;
              saver.save(cursor);
              saver.flush();
              if (!announced) {
                out(`Ready. Your webhook signing secret is ${secret} (stable for this key)`);
                out(`Forwarding ${events.join(', ')} to ${forwardTo} (Ctrl-C to stop)`);
                announced = true;
              }
              continue;
            }
            if (!secret) continue;
            await forward(event, secret);
            cursor = event.id;
            saver.save(cursor);
          }
        }
      } finally {
        clearTimeout(idle);
        stop.signal.removeEventListener('abort', abortConnection);
      }
    }

    async function forward(event, secret) {
      const body = Buffer.from(event.data, 'utf8');
      let eventId = '';
      try {
        eventId = JSON.parse(event.data).id;
      } catch {
        // Forwarded as received; the line shows no id.
      }
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': 'platformctl-listen/1.0',
        ...webhookDeliveryHeaders({
          secrets: [secret],
          timestampSeconds: Math.floor(Date.now() / 1000),
          body,
          eventId,
          eventType: event.event,
          deliveryId: deliveryId(),
          attempt: 1,
        }),
      };
      const started = performance.now();
      let result;
      try {
        const res = await fetch(forwardTo, {
          method: 'POST',
          headers,
          body,
          redirect: 'manual',
          signal: AbortSignal.any([AbortSignal.timeout(ANSWER_TIMEOUT_MS), stop.signal]),
        });
        await res.arrayBuffer();
        result = String(res.status);
      } catch (error) {
        if (stop.signal.aborted) throw error;
        // The local app is down or slow: shown, not retried (a registered endpoint would retry; here the developer sees it at once).
        result = `failed (${error.cause?.code ?? error.name ?? error.message})`;
      }
      out(`${localTime()}  ${event.event.padEnd(18)}  ${eventId}  -> ${result} (${Math.round(performance.now() - started)} ms)`);
    }

    try {
      while (!stop.signal.aborted) {
        try {
          await streamOnce();
        } catch (error) {
          if (error instanceof CliError) throw error;
          if (stop.signal.aborted) break;
          failures += 1;
          process.stderr.write(`platformctl listen: connection failed (${error.cause?.code ?? error.message}); reconnecting\n`);
        }
        if (stop.signal.aborted) break;
        // A stream the gateway ended (its lifetime) resumes at once; failures back off up to 5 s.
        await sleep(failures === 0 ? 100 : Math.min(250 * 2 ** failures, 5000), stop.signal);
      }
    } finally {
      saver.flush();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    out('Stopped.');
    return EXIT.ok;
  },
};
