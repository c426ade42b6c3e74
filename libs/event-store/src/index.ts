export * from './decider';
export * from './schema.sql';
export * from './event-store';
export * from './outbox-relay';
export * from './inbox';
export * from './command-handler';
export * from './pg-listener';
export * from './projection-rebuild';
