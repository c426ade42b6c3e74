export * from './outgoing-mail';
export * from './mail-retry';
export * from './mail-outbox.sql';
export * from './mail-sender';
export * from './smtp-transport';
