export * from './resource-schemas';
export * from './webhook-event-schemas';
