import type { PingResult } from './api-types';
import {
  BusinessProfileResource,
  ConsentsResource,
  EventsResource,
  MediaResource,
  MessagesResource,
  OptInLinksResource,
  UsersResource,
  WebhookDeliveriesResource,
  WebhooksResource,
  TemplatesResource,
} from './platform-resources';
import { RequestSender, type ApiResult, type FetchLike, type RequestOptions } from './request-sender';
import { DEFAULT_RETRY_SETTINGS } from './retry-policy';

/** Options of `new PlatformClient(...)`. */
export interface PlatformClientOptions {
  /** An app API key (`qk_sb_...` or `qk_live_...`). */
  apiKey: string;
  /** The API's base URL, ending in `/platform/v1`. Default `http://localhost:3000/platform/v1`. */
  baseUrl?: string;
  /** Retries after a failed attempt (see the README's retry policy). Default 2; 0 disables retrying. */
  maxRetries?: number;
  /** Time limit of each attempt in ms, answer body included. Default 60 000 (registering an endpoint waits for its handshake). */
  timeoutMs?: number;
  /** The fetch implementation. Default the global `fetch` of Node 20+. */
  fetch?: FetchLike;
  /** Waits between retries. Default a timer; tests pass one that records the delay instead. */
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_BASE_URL = 'http://localhost:3000/platform/v1';
const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The API client: one resource per part of the API, each method one endpoint.
 *
 * ```ts
 * const client = new PlatformClient({ apiKey: process.env.PLATFORM_API_KEY! });
 * const sent = await client.messages.send({ to: { appUserId }, type: 'text', text: 'Your order shipped' });
 * ```
 */
export class PlatformClient {
  /** POST /messages, GET /messages/{id}. */
  readonly messages: MessagesResource;
  /** POST /media, GET /media/{id}, and `upload` for the whole flow. */
  readonly media: MediaResource;
  /** GET /users/{appUserId}. */
  readonly users: UsersResource;
  /** GET /consents (paged). */
  readonly consents: ConsentsResource;
  /** POST /optin-links. */
  readonly optInLinks: OptInLinksResource;
  /** GET and PATCH /business-profile. */
  readonly businessProfile: BusinessProfileResource;
  /** /webhooks. */
  readonly webhooks: WebhooksResource;
  /** /webhook-deliveries (paged) and replays. */
  readonly webhookDeliveries: WebhookDeliveriesResource;
  /** Message templates (`/templates`). */
  readonly templates: TemplatesResource;
  /** GET /events (paged) and GET /events/{id}: the last 30 days of events. */
  readonly events: EventsResource;
  private readonly sender: RequestSender;

  constructor(options: PlatformClientOptions) {
    if (!options?.apiKey) throw new TypeError('PlatformClient: apiKey is required');
    const maxRetries = options.maxRetries ?? DEFAULT_RETRY_SETTINGS.maxRetries;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('PlatformClient: maxRetries must be a non-negative integer');
    const fetchImpl = options.fetch ?? defaultFetch();
    this.sender = new RequestSender({
      apiKey: options.apiKey,
      baseUrl: (options.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, ''),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      retry: { ...DEFAULT_RETRY_SETTINGS, maxRetries },
      fetch: fetchImpl,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
      random: Math.random,
    });
    this.messages = new MessagesResource(this.sender);
    this.media = new MediaResource(this.sender);
    this.users = new UsersResource(this.sender);
    this.consents = new ConsentsResource(this.sender);
    this.optInLinks = new OptInLinksResource(this.sender);
    this.businessProfile = new BusinessProfileResource(this.sender);
    this.webhooks = new WebhooksResource(this.sender);
    this.webhookDeliveries = new WebhookDeliveriesResource(this.sender);
    this.templates = new TemplatesResource(this.sender);
    this.events = new EventsResource(this.sender);
  }

  /** GET /ping: checks the key and says which app, environment and scopes it has. */
  ping(options?: RequestOptions): Promise<ApiResult<PingResult>> {
    return this.sender.request({ method: 'GET', path: '/ping', idempotent: true }, options);
  }
}

function defaultFetch(): FetchLike {
  if (typeof globalThis.fetch !== 'function') throw new TypeError('PlatformClient: no global fetch (Node 20 or later is required), pass options.fetch');
  // Looked up per call, so a fetch replaced after construction (test interceptors) is used.
  return (url, init) => globalThis.fetch(url, init as RequestInit);
}
