import {
  API_VERSION,
  derivedId,
  ID_PREFIX,
  WEBHOOKS,
  type DomainEvent,
  type EventOf,
  type PublicEventData,
  type PublicEventEnvelope,
  type PublicEventType,
} from '#platform/contracts';

/** A public event ready to deliver: its envelope, the exact bytes every delivery and replay sends, and what must exist first. */
export interface PublicEvent {
  envelope: PublicEventEnvelope;
  payload: string;
  /** Files a receiver will fetch with GET /media: deliveries wait until media has registered them. */
  requiresMedia: string[];
}

/** The domain events that become public events, and the handler of each. */
export const PUBLIC_SOURCE_TYPES = [
  'MessageSent',
  'MessageDelivered',
  'MessageRead',
  'MessageFailed',
  'MessageReceived',
  'ConsentUpdated',
  'AppStatusChanged',
  // Message templates (architecture section 13): each submitted version and each verdict is a template.status.
  'TemplateCreated',
  'TemplateChanged',
  'TemplateApproved',
  'TemplateRejected',
] as const;

type PublicSourceType = (typeof PUBLIC_SOURCE_TYPES)[number];

/** Whether a (schema-checked) domain event is one that becomes a public event, narrowing it to its type. */
function isPublicSource(event: DomainEvent): event is EventOf<PublicSourceType> {
  return (PUBLIC_SOURCE_TYPES as readonly string[]).includes(event.type);
}

const STATUS_OF = { MessageSent: 'sent', MessageDelivered: 'delivered', MessageRead: 'read', MessageFailed: 'failed' } as const;

/** `evt_` id of the public event a domain event becomes: the same on every replay of a topic (architecture section 6). */
export function publicEventId(domainEvent: Pick<DomainEvent, 'eventId' | 'occurredAt'>): string {
  return derivedId(ID_PREFIX.event, Date.parse(domainEvent.occurredAt), `public:${domainEvent.eventId}`);
}

/** Whether an event that happened at `occurredAt` is still within the events API's 30 days at `now` (ADR 0223). */
export function keptForEventsApi(occurredAt: string, now: Date): boolean {
  return now.getTime() - Date.parse(occurredAt) <= WEBHOOKS.eventRetentionMs;
}

export function envelopeOf<T extends PublicEventType>(
  id: string,
  type: T,
  appId: string,
  occurredAt: string,
  data: PublicEventData[T],
): PublicEventEnvelope<T> {
  // Key order is the spec's; the serialised bytes are what gets signed and kept for replays.
  return { id, type, apiVersion: API_VERSION, created: Math.floor(Date.parse(occurredAt) / 1000), appId, data } as PublicEventEnvelope<T>;
}

/** Maps one domain event to the public event it stands for, or null when it has none. */
export function toPublicEvent(event: DomainEvent): PublicEvent | null {
  if (!event.appId || !isPublicSource(event)) return null;
  const id = publicEventId(event);
  const build = <T extends PublicEventType>(type: T, data: PublicEventData[T], requiresMedia: string[] = []): PublicEvent => {
    const envelope = envelopeOf(id, type, event.appId as string, event.occurredAt, data);
    return { envelope: envelope as PublicEventEnvelope, payload: JSON.stringify(envelope), requiresMedia };
  };
  switch (event.type) {
    case 'MessageSent':
    case 'MessageDelivered':
    case 'MessageRead':
    case 'MessageFailed': {
      const d = event.data;
      return build('message.status', {
        id: d.messageId,
        appUserId: d.appUserId,
        status: STATUS_OF[event.type],
        timestamp: event.occurredAt,
        ...(d.clientReference !== null ? { clientReference: d.clientReference } : {}),
        ...(event.type === 'MessageFailed' ? { reason: event.data.reason } : {}),
      });
    }
    case 'MessageReceived': {
      const d = event.data;
      const media = d.media.map((file) => ({ id: file.id, mimeType: file.mimeType, fileName: file.fileName, size: file.size }));
      return build(
        'message.received',
        {
          id: d.messageId,
          from: d.appUserId,
          type: d.type,
          text: d.text,
          media,
          ...(d.replyTo !== null ? { context: { messageId: d.replyTo } } : {}),
          timestamp: event.occurredAt,
        },
        media.map((file) => file.id),
      );
    }
    case 'ConsentUpdated': {
      const d = event.data;
      return build('consent.updated', {
        appUserId: d.appUserId,
        status: d.status,
        // The source says how the user opted in; it is news only with an opt-in.
        ...(d.status === 'opted_in' ? { source: d.source } : {}),
        ...(d.status === 'opted_in' && d.ref !== null ? { ref: d.ref } : {}),
        ...(d.reason !== null ? { reason: d.reason } : {}),
      });
    }
    case 'AppStatusChanged': {
      const d = event.data;
      return build('app.status_changed', { status: d.status, previousStatus: d.previousStatus, ...(d.reason !== null ? { reason: d.reason } : {}) });
    }
    case 'TemplateCreated':
    case 'TemplateChanged': {
      // A sandbox app's version is approved in the same decision: its TemplateApproved is the one status published.
      const d = event.data;
      if (d.approvedAtOnce) return null;
      return build('template.status', { id: d.templateId, name: d.name, language: d.language, status: 'pending', version: d.version });
    }
    case 'TemplateApproved':
    case 'TemplateRejected': {
      const d = event.data;
      const status = event.type === 'TemplateApproved' ? 'approved' : 'rejected';
      return build('template.status', {
        id: d.templateId,
        name: d.name,
        language: d.language,
        status,
        ...(d.reason !== null ? { reason: d.reason } : {}),
        version: d.version,
      });
    }
    default:
      return null;
  }
}
