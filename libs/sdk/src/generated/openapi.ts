// PROVISIONAL hand-written stand-in until docs/openapi.json lands; replaced by the generator.
type DT = string;
type ErrorCodeU = 'invalid_request' | 'invalid_json' | 'idempotency_key_required' | 'invalid_api_key' | 'insufficient_scope' | 'app_suspended' | 'key_environment_mismatch' | 'consent_required' | 'recipient_not_tester' | 'recipient_outside_org' | 'recipient_org_blocks_businesses' | 'recipient_unavailable' | 'email_addressing_not_allowed' | 'not_found' | 'recipient_not_found' | 'route_not_found' | 'media_not_uploaded' | 'idempotency_in_progress' | 'subscription_limit_reached' | 'subscription_not_verified' | 'delivery_in_progress' | 'payload_expired' | 'payload_too_large' | 'media_too_large' | 'unsupported_media_type' | 'idempotency_key_reused' | 'media_invalid' | 'verify_token_mismatch' | 'webhook_url_https_required' | 'webhook_url_port_not_allowed' | 'webhook_url_blocked_address' | 'webhook_url_blocked_host' | 'webhook_url_dns_failed' | 'webhook_url_invalid_url' | 'rate_limited' | 'daily_quota_exceeded' | 'business_initiated_cap' | 'media_rate_limited' | 'internal_error';
type Media = { id: string; source: 'app' | 'user'; kind: string; mimeType: string; fileName: string; size: number; status: 'pending_upload' | 'ready'; url: string | null; urlExpiresAt: DT | null; createdAt: DT };
type Consent = { appUserId: string; status: 'opted_in' | 'opted_out' | 'blocked'; source: string; ref: string | null; optedInAt: DT | null; optedOutAt: DT | null; updatedAt: DT };
type WebhookEndpoint = { id: string; url: string; events: string[]; state: 'pending_verification' | 'enabled' | 'disabled'; createdAt: DT; updatedAt: DT; verifiedAt: DT | null; disabledAt: DT | null; lastVerificationError: string | null };
type WebhookDelivery = { id: string; eventId: string; eventType: string; subscriptionId: string; status: 'pending' | 'delivered' | 'failed'; attempts: number };
type Env<T extends string, D> = { id: string; type: T; apiVersion: string; created: number; appId: string; data: D };
export interface components {
  schemas: {
    Message: { id: string; direction: 'outbound' | 'inbound'; appUserId: string | null; type: string; text: string | null; media: { id: string; mimeType: string | null; fileName: string; size: number }[]; status: string; clientReference: string | null; createdAt: DT; deliveredAt: DT | null; readAt: DT | null };
    SendMessageRequest: { to: { appUserId: string } | { email: string }; type: 'text' | 'image' | 'video' | 'audio' | 'file'; text?: string; mediaId?: string; clientReference?: string };
    SendAcceptance: { id: string; status: 'accepted'; appUserId: string; type: string; createdAt: DT; clientReference: string | null };
    Media: Media;
    UploadInstruction: { url: string; method: 'PUT'; headers: { [key: string]: string }; expiresAt: DT };
    CreateMediaRequest: { fileName: string; mimeType: string; size: number };
    CreateMediaResponse: { media: Media; upload: components['schemas']['UploadInstruction'] };
    Consent: Consent;
    Window: { open: boolean; expiresAt: DT | null };
    UserConsent: { appUserId: string; consent: Consent; window: components['schemas']['Window'] };
    ConsentPage: { data: Consent[]; nextCursor: string | null };
    OptInLink: { url: string; token: string; ref: string | null; expiresAt: DT };
    CreateOptInLinkRequest: { ref?: string; expiresInDays?: number };
    BusinessProfile: { appId: string; handle: string; displayName: string; verificationStatus: string; updatedAt: DT };
    UpdateBusinessProfileRequest: { displayName?: string; about?: string | null; websiteUrl?: string | null; category?: string | null; avatarMediaId?: string | null };
    PingResult: { ok: true; appId: string; appStatus: string; environment: 'sandbox' | 'live'; scopes: string[]; apiVersion: string; requestId: string; time: DT };
    WebhookEndpoint: WebhookEndpoint;
    WebhookEndpointWithSecret: WebhookEndpoint & { secret: string };
    WebhookEndpointList: { data: WebhookEndpoint[] };
    CreateWebhookEndpointRequest: { url: string; verifyToken: string; events: string[] };
    UpdateWebhookEndpointRequest: { url?: string; verifyToken?: string; events?: string[] };
    VerifyWebhookEndpointRequest: { verifyToken: string };
    WebhookTestAccepted: { deliveryId: string; eventId: string };
    RotatedSecret: { secret: string; previousSecretExpiresAt: DT };
    WebhookDelivery: WebhookDelivery;
    WebhookDeliveryPage: { data: WebhookDelivery[]; nextCursor: string | null };
    ErrorEnvelope: { error: { code: ErrorCodeU; message: string; type: 'invalid_request_error' | 'authentication_error' | 'permission_error' | 'not_found_error' | 'conflict_error' | 'idempotency_error' | 'rate_limit_error' | 'api_error'; requestId: string; docUrl: string; details?: { field: string; issue: string }[] } };
    ErrorCode: ErrorCodeU;
    MessageReceivedEvent: Env<'message.received', { id: string; from: string; type: string; text: string | null }>;
    MessageStatusEvent: Env<'message.status', { id: string; appUserId: string; status: string; timestamp: DT; clientReference?: string }>;
    ConsentUpdatedEvent: Env<'consent.updated', { appUserId: string; status: string }>;
    AppStatusChangedEvent: Env<'app.status_changed', { status: string; previousStatus: string }>;
    WebhookTestEvent: Env<'webhook.test', { message: string; subscriptionId: string; nonce: string }>;
    WebhookEvent: components['schemas']['MessageReceivedEvent'] | components['schemas']['MessageStatusEvent'] | components['schemas']['ConsentUpdatedEvent'] | components['schemas']['AppStatusChangedEvent'] | components['schemas']['WebhookTestEvent'];
  };
}
export interface operations {
  listConsents: { parameters: { query?: { status?: 'opted_in' | 'opted_out' | 'blocked'; limit?: number; cursor?: string } } };
  listWebhookDeliveries: { parameters: { query?: { status?: 'pending' | 'delivered' | 'failed'; subscriptionId?: string; limit?: number; cursor?: string } } };
}
