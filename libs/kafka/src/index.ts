export * from './kafka-client';
export * from './topics';
export * from './event-validator';
export * from './inbox-consumer';
export * from './rpc-client';
export * from './rpc-dispatcher';
export * from './rpc-server';
export * from './coalescing-send';
