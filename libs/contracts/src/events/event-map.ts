import type { DomainEvent } from '../domain-event';
import type { ChatUserEvent, MessageHandedOver } from './chat.events';
import type { ConsentEvent } from './consent.events';
import type { GatewayEvent } from './gateway.events';
import type { MediaEvent } from './media.events';
import type { MessagingEvent } from './messaging.events';
import type { ProfileEvent } from './profile.events';
import type { TemplateEvent } from './template.events';
import type { WebhookEndpointDisabled } from './webhooks.events';

/** Every event a service publishes for others to consume: what consumers' handlers are typed by. */
export type PlatformEvent =
  ChatUserEvent | MessageHandedOver | ConsentEvent | GatewayEvent | MediaEvent | MessagingEvent | TemplateEvent | ProfileEvent | WebhookEndpointDisabled;

export type PlatformEventType = PlatformEvent['type'];

/** Whether `event` is of `type`, narrowing its data (for events whose schema was checked, as consumers' are). */
export function isEventOf<T extends PlatformEventType>(event: DomainEvent, type: T): event is EventOf<T> {
  return event.type === type;
}

/** The envelope of an event type, its `type` and `data` narrowed (of several types: their union, discriminated by `type`). */
export type EventOf<T extends PlatformEventType> = T extends PlatformEventType ? DomainEvent<T, Extract<PlatformEvent, { type: T }>['data']> : never;
