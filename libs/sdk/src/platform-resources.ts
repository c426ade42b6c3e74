import { randomUUID } from 'node:crypto';
import type {
  BusinessProfile,
  Consent,
  ConsentListParams,
  ConsentPage,
  CreateMediaRequest,
  CreateMediaResponse,
  CreateOptInLinkRequest,
  CreateTemplateRequest,
  CreateWebhookEndpointRequest,
  EventListParams,
  EventPage,
  Media,
  Message,
  OptInLink,
  RecoverWebhookEndpointRequest,
  RotatedSecret,
  SendAcceptance,
  SendMessageRequest,
  Template,
  TemplateListParams,
  TemplatePage,
  UpdateBusinessProfileRequest,
  UpdateTemplateRequest,
  UpdateWebhookEndpointRequest,
  UserConsent,
  VerifyWebhookEndpointRequest,
  WebhookDelivery,
  WebhookDeliveryListParams,
  WebhookDeliveryPage,
  WebhookEndpoint,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
  WebhookEvent,
  WebhookRecoveryAccepted,
  WebhookTestAccepted,
} from './api-types';
import { PagedList } from './paged-list';
import { PlatformConnectionError } from './platform-error';
import type { ApiResult, RequestOptions, RequestSender } from './request-sender';

const id = (value: string) => encodeURIComponent(value);

/** Options of `messages.send`. */
export interface SendOptions extends RequestOptions {
  /**
   * The `Idempotency-Key` (max 255 printable ASCII). When omitted a random UUID is used; either way
   * the same key goes with every retry of this call, so a message is never sent twice. Pass your own
   * (e.g. your order id) to make sends safe across process restarts too.
   */
  idempotencyKey?: string;
}

/** POST /messages, GET /messages/{id}. */
export class MessagesResource {
  constructor(private readonly sender: RequestSender) {}

  /** Sends a message to an opted-in user (202: accepted). Retries reuse one Idempotency-Key. */
  send(body: SendMessageRequest, options: SendOptions = {}): Promise<ApiResult<SendAcceptance>> {
    const { idempotencyKey = randomUUID(), ...rest } = options;
    return this.sender.request({ method: 'POST', path: '/messages', body, headers: { 'idempotency-key': idempotencyKey }, idempotent: true }, rest);
  }

  /** One message the app sent or received. */
  get(messageId: string, options?: RequestOptions): Promise<ApiResult<Message>> {
    return this.sender.request({ method: 'GET', path: `/messages/${id(messageId)}`, idempotent: true }, options);
  }
}

/** Bytes accepted by `media.upload`. */
export type UploadBytes = Uint8Array | ArrayBuffer;

/** POST /media, GET /media/{id}, and the upload flow. */
export class MediaResource {
  constructor(private readonly sender: RequestSender) {}

  /** Declares a file: the media record (pending_upload) and where to PUT its bytes within 15 minutes. */
  create(body: CreateMediaRequest, options?: RequestOptions): Promise<ApiResult<CreateMediaResponse>> {
    return this.sender.request({ method: 'POST', path: '/media', body, idempotent: false }, options);
  }

  /** A media record with a fresh download URL (valid 1 hour). */
  get(mediaId: string, options?: RequestOptions): Promise<ApiResult<Media>> {
    return this.sender.request({ method: 'GET', path: `/media/${id(mediaId)}`, idempotent: true }, options);
  }

  /**
   * The whole upload flow: POST /media with the bytes' size, PUT the bytes to `upload.url` with
   * exactly `upload.headers`, then GET the record, which checks the upload and answers it `ready`
   * (use its `id` as `mediaId` in `messages.send`). A refused PUT throws PlatformConnectionError.
   */
  async upload(bytes: UploadBytes, file: { fileName: string; mimeType: string }, options?: RequestOptions): Promise<ApiResult<Media>> {
    const body = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const { media, upload } = await this.create({ fileName: file.fileName, mimeType: file.mimeType, size: body.byteLength }, options);
    const put = await this.sender.send({ method: 'PUT', path: upload.url, headers: upload.headers, rawBody: body, idempotent: true, external: true }, options);
    if (put.status < 200 || put.status >= 300) {
      throw new PlatformConnectionError(`the upload of ${media.id} was refused with ${put.status}`, {
        status: put.status,
        headers: put.headers,
        body: put.text.slice(0, 2000),
      });
    }
    return this.get(media.id, options);
  }
}

/** GET /users/{appUserId}. */
export class UsersResource {
  constructor(private readonly sender: RequestSender) {}

  /** One user's consent and reply window. */
  get(appUserId: string, options?: RequestOptions): Promise<ApiResult<UserConsent>> {
    return this.sender.request({ method: 'GET', path: `/users/${id(appUserId)}`, idempotent: true }, options);
  }
}

/** GET /consents. */
export class ConsentsResource {
  constructor(private readonly sender: RequestSender) {}

  /** `await` it for one page, or `for await` over it for every consent of every page. */
  list(params: ConsentListParams = {}, options?: RequestOptions): PagedList<Consent, ApiResult<ConsentPage>> {
    return new PagedList((cursor) =>
      this.sender.request<ConsentPage>({ method: 'GET', path: '/consents', query: { ...params, ...(cursor ? { cursor } : {}) }, idempotent: true }, options),
    );
  }
}

/** POST /optin-links. */
export class OptInLinksResource {
  constructor(private readonly sender: RequestSender) {}

  /** A signed link to the business profile; opening it never opts in, the user must tap Allow. */
  create(body: CreateOptInLinkRequest = {}, options?: RequestOptions): Promise<ApiResult<OptInLink>> {
    return this.sender.request({ method: 'POST', path: '/optin-links', body, idempotent: false }, options);
  }
}

/** GET and PATCH /business-profile. */
export class BusinessProfileResource {
  constructor(private readonly sender: RequestSender) {}

  get(options?: RequestOptions): Promise<ApiResult<BusinessProfile>> {
    return this.sender.request({ method: 'GET', path: '/business-profile', idempotent: true }, options);
  }

  /** Changes the given fields only; null clears a nullable one. */
  update(patch: UpdateBusinessProfileRequest, options?: RequestOptions): Promise<ApiResult<BusinessProfile>> {
    return this.sender.request({ method: 'PATCH', path: '/business-profile', body: patch, idempotent: true }, options);
  }
}

/** /webhooks: the app's webhook endpoints. */
export class WebhooksResource {
  constructor(private readonly sender: RequestSender) {}

  list(options?: RequestOptions): Promise<ApiResult<WebhookEndpointList>> {
    return this.sender.request({ method: 'GET', path: '/webhooks', idempotent: true }, options);
  }

  /** Registers an endpoint and runs the handshake; the answer holds the signing `secret`, shown only here. */
  create(body: CreateWebhookEndpointRequest, options?: RequestOptions): Promise<ApiResult<WebhookEndpointWithSecret>> {
    return this.sender.request({ method: 'POST', path: '/webhooks', body, idempotent: false }, options);
  }

  get(endpointId: string, options?: RequestOptions): Promise<ApiResult<WebhookEndpoint>> {
    return this.sender.request({ method: 'GET', path: `/webhooks/${id(endpointId)}`, idempotent: true }, options);
  }

  /** Changes events; a new url needs verifyToken and re-runs the handshake. */
  update(endpointId: string, patch: UpdateWebhookEndpointRequest, options?: RequestOptions): Promise<ApiResult<WebhookEndpoint>> {
    return this.sender.request({ method: 'PATCH', path: `/webhooks/${id(endpointId)}`, body: patch, idempotent: true }, options);
  }

  /**
   * Removes the endpoint. Retried like any idempotent call, so when an earlier attempt's answer was
   * lost a retry may see 404 not_found for an endpoint that is in fact gone.
   */
  async delete(endpointId: string, options?: RequestOptions): Promise<void> {
    await this.sender.request({ method: 'DELETE', path: `/webhooks/${id(endpointId)}`, idempotent: true }, options);
  }

  /** Re-runs the handshake with the endpoint's token (re-enables a disabled endpoint). */
  verify(endpointId: string, body: VerifyWebhookEndpointRequest, options?: RequestOptions): Promise<ApiResult<WebhookEndpoint>> {
    return this.sender.request({ method: 'POST', path: `/webhooks/${id(endpointId)}/verify`, body, idempotent: true }, options);
  }

  /** Delivers a signed webhook.test event to this endpoint only. */
  test(endpointId: string, options?: RequestOptions): Promise<ApiResult<WebhookTestAccepted>> {
    return this.sender.request({ method: 'POST', path: `/webhooks/${id(endpointId)}/test`, idempotent: false }, options);
  }

  /** A new signing secret; the old one keeps signing (as a second v1) for 24 hours. */
  rotateSecret(endpointId: string, options?: RequestOptions): Promise<ApiResult<RotatedSecret>> {
    return this.sender.request({ method: 'POST', path: `/webhooks/${id(endpointId)}/rotate-secret`, idempotent: false }, options);
  }

  /**
   * After an outage: a new delivery of every event since `since` (at most 7 days ago) that the
   * endpoint subscribes to and has not received. Not retried once sent: a repeat would be 409
   * recover_in_progress while the first one's deliveries are pending.
   */
  recover(
    endpointId: string,
    body: Omit<RecoverWebhookEndpointRequest, 'since'> & { since: string | Date },
    options?: RequestOptions,
  ): Promise<ApiResult<WebhookRecoveryAccepted>> {
    const since = body.since instanceof Date ? body.since.toISOString() : body.since;
    return this.sender.request({ method: 'POST', path: `/webhooks/${id(endpointId)}/recover`, body: { ...body, since }, idempotent: false }, options);
  }
}

/** GET /events, GET /events/{id}: the app's events of the last 30 days, exactly as delivered. */
export class EventsResource {
  constructor(private readonly sender: RequestSender) {}

  /** Newest first; `await` it for one page, or `for await` over it for every event of every page. */
  list(params: EventListParams = {}, options?: RequestOptions): PagedList<WebhookEvent, ApiResult<EventPage>> {
    return new PagedList((cursor) =>
      this.sender.request<EventPage>({ method: 'GET', path: '/events', query: { ...params, ...(cursor ? { cursor } : {}) }, idempotent: true }, options),
    );
  }

  /** One event by its id (evt_…); 404 not_found past 30 days. */
  get(eventId: string, options?: RequestOptions): Promise<ApiResult<WebhookEvent>> {
    return this.sender.request({ method: 'GET', path: `/events/${id(eventId)}`, idempotent: true }, options);
  }
}

/** /webhook-deliveries. */
export class WebhookDeliveriesResource {
  constructor(private readonly sender: RequestSender) {}

  /** Newest first; `await` it for one page, or `for await` over it for every delivery. */
  list(params: WebhookDeliveryListParams = {}, options?: RequestOptions): PagedList<WebhookDelivery, ApiResult<WebhookDeliveryPage>> {
    return new PagedList((cursor) =>
      this.sender.request<WebhookDeliveryPage>(
        { method: 'GET', path: '/webhook-deliveries', query: { ...params, ...(cursor ? { cursor } : {}) }, idempotent: true },
        options,
      ),
    );
  }

  /** Delivers the same event (same id and payload) again as a new delivery. */
  replay(deliveryId: string, options?: RequestOptions): Promise<ApiResult<WebhookDelivery>> {
    return this.sender.request({ method: 'POST', path: `/webhook-deliveries/${id(deliveryId)}/replay`, idempotent: false }, options);
  }
}

/** /templates: the app's message templates, sent with `messages.send({ type: 'template', template: {…} })`. */
export class TemplatesResource {
  constructor(private readonly sender: RequestSender) {}

  /** A sandbox app's template is approved at once; a live app's waits for review (template.status events). */
  create(body: CreateTemplateRequest, options?: RequestOptions): Promise<ApiResult<Template>> {
    return this.sender.request({ method: 'POST', path: '/templates', body, idempotent: false }, options);
  }

  /** Newest first; `await` it for one page, or `for await` over it for every template. */
  list(params: TemplateListParams = {}, options?: RequestOptions): PagedList<Template, ApiResult<TemplatePage>> {
    return new PagedList((cursor) =>
      this.sender.request<TemplatePage>({ method: 'GET', path: '/templates', query: { ...params, ...(cursor ? { cursor } : {}) }, idempotent: true }, options),
    );
  }

  get(templateId: string, options?: RequestOptions): Promise<ApiResult<Template>> {
    return this.sender.request({ method: 'GET', path: `/templates/${id(templateId)}`, idempotent: true }, options);
  }

  /** A new version, pending until reviewed (a sandbox app's approved at once). Not retried: a retry would be one more version. */
  update(templateId: string, patch: UpdateTemplateRequest, options?: RequestOptions): Promise<ApiResult<Template>> {
    return this.sender.request({ method: 'PATCH', path: `/templates/${id(templateId)}`, body: patch, idempotent: false }, options);
  }

  /** Deletes it; retried, so a lost answer may show as 404 not_found for a template that is gone. */
  async delete(templateId: string, options?: RequestOptions): Promise<void> {
    await this.sender.request({ method: 'DELETE', path: `/templates/${id(templateId)}`, idempotent: true }, options);
  }
}
