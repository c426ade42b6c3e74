export * from './decider-spec';
export * from './e2e';
export * from './processes';
export * from './https-receiver';
