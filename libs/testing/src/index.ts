export * from './decider-spec';
export * from './e2e';
export * from './processes';
export * from './webhooks';
export * from './fake-dns-server';
export * from './https-receiver';
export * from './api-conformance';
export * from './raw-http';
