export * from './pipelined-transaction';
export * from './prepared-statements';
export * from './group-commit';
export * from './sql-literal';
export * from './json-rows';
export * from './pg-listener';
export * from './pg-pool-errors';
export * from './expired-rows';
