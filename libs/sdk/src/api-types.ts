/**
 * Friendly names for the types generated from the OpenAPI document (src/generated/openapi.ts), so
 * callers never spell `components['schemas'][...]` and the SDK cannot drift from the contract.
 */
import type { components, operations } from './generated/openapi';

type Schemas = components['schemas'];

/** GET /ping. */
export type PingResult = Schemas['PingResult'];

/** A message, as GET /messages/{id} answers it. */
export type Message = Schemas['Message'];
/** Body of POST /messages. */
export type SendMessageRequest = Schemas['SendMessageRequest'];
/** 202 answer of POST /messages. */
export type SendAcceptance = Schemas['SendAcceptance'];

/** A media record (app upload or user attachment). */
export type Media = Schemas['Media'];
/** Where and how to PUT the bytes of a new media record. */
export type UploadInstruction = Schemas['UploadInstruction'];
/** Body of POST /media. */
export type CreateMediaRequest = Schemas['CreateMediaRequest'];
/** 201 answer of POST /media: the record and its upload instruction. */
export type CreateMediaResponse = Schemas['CreateMediaResponse'];

/** One user's consent to the app. */
export type Consent = Schemas['Consent'];
/** The 24-hour reply window. */
export type Window = Schemas['Window'];
/** GET /users/{appUserId}. */
export type UserConsent = Schemas['UserConsent'];
/** One page of GET /consents. */
export type ConsentPage = Schemas['ConsentPage'];
/** Filters and paging of GET /consents. */
export type ConsentListParams = NonNullable<operations['listConsents']['parameters']['query']>;

/** 201 answer of POST /optin-links. */
export type OptInLink = Schemas['OptInLink'];
/** Body of POST /optin-links. */
export type CreateOptInLinkRequest = Schemas['CreateOptInLinkRequest'];

/** The app's business profile. */
export type BusinessProfile = Schemas['BusinessProfile'];
/** Body of PATCH /business-profile. */
export type UpdateBusinessProfileRequest = Schemas['UpdateBusinessProfileRequest'];

/** A webhook endpoint (never carries its secret). */
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
/** The answer of POST /webhooks: the only time the signing secret is shown. */
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
/** GET /webhooks. */
export type WebhookEndpointList = Schemas['WebhookEndpointList'];
/** Body of POST /webhooks. */
export type CreateWebhookEndpointRequest = Schemas['CreateWebhookEndpointRequest'];
/** Body of PATCH /webhooks/{id}. */
export type UpdateWebhookEndpointRequest = Schemas['UpdateWebhookEndpointRequest'];
/** Body of POST /webhooks/{id}/verify. */
export type VerifyWebhookEndpointRequest = Schemas['VerifyWebhookEndpointRequest'];
/** 202 answer of POST /webhooks/{id}/test. */
export type WebhookTestAccepted = Schemas['WebhookTestAccepted'];
/** POST /webhooks/{id}/rotate-secret. */
export type RotatedSecret = Schemas['RotatedSecret'];

/** Body of POST /webhooks/{id}/recover. */
export type RecoverWebhookEndpointRequest = Schemas['RecoverWebhookEndpointRequest'];
/** 202 answer of POST /webhooks/{id}/recover: the deliveries created. */
export type WebhookRecoveryAccepted = Schemas['WebhookRecoveryAccepted'];

/** One page of GET /events: the app's events, newest first, each as delivered. */
export type EventPage = Schemas['EventPage'];
/** Filters and paging of GET /events. */
export type EventListParams = NonNullable<operations['listEvents']['parameters']['query']>;

/** One delivery of an event to an endpoint. */
export type WebhookDelivery = Schemas['WebhookDelivery'];
/** One page of GET /webhook-deliveries. */
export type WebhookDeliveryPage = Schemas['WebhookDeliveryPage'];
/** Filters and paging of GET /webhook-deliveries. */
export type WebhookDeliveryListParams = NonNullable<operations['listWebhookDeliveries']['parameters']['query']>;

/** The body of every non-2xx answer. */
export type ErrorEnvelope = Schemas['ErrorEnvelope'];
/** Every error code the API documents; branch on it (messages are for humans and may change). */
export type ErrorCode = Schemas['ErrorCode'];
/** The error families (invalid_request_error, rate_limit_error, ...). */
export type ErrorType = ErrorEnvelope['error']['type'];

/** Message templates: the resource, a page of them, and the create and change bodies. */
export type Template = Schemas['Template'];
export type TemplatePage = Schemas['TemplatePage'];
export type CreateTemplateRequest = Schemas['CreateTemplateRequest'];
export type UpdateTemplateRequest = Schemas['UpdateTemplateRequest'];
export type TemplateListParams = NonNullable<operations['listTemplates']['parameters']['query']>;

/** Webhook event payloads, as delivered to an endpoint. */
export type MessageReceivedEvent = Schemas['MessageReceivedEvent'];
export type MessageStatusEvent = Schemas['MessageStatusEvent'];
export type ConsentUpdatedEvent = Schemas['ConsentUpdatedEvent'];
export type AppStatusChangedEvent = Schemas['AppStatusChangedEvent'];
export type TemplateStatusEvent = Schemas['TemplateStatusEvent'];
export type WebhookTestEvent = Schemas['WebhookTestEvent'];
/** Any event a webhook delivery can carry; narrow on `type`. */
export type WebhookEvent = Schemas['WebhookEvent'];
/** The names an endpoint can subscribe to. */
export type WebhookEventType = WebhookEvent['type'];
