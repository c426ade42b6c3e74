export * from './schema-builders';
export * from './profile.events';
export * from './gateway.events';
export * from './chat.events';
export * from './consent.events';
export * from './messaging.events';
export * from './media.events';
export * from './event-schemas';
