/**
 * Three levels (DEVELOPERS guide): unit (*.spec.ts, pure, no I/O), integration (*.int.spec.ts, real
 * Postgres/Kafka/S3Proxy) and e2e (*.e2e.spec.ts, HTTP against the running apps).
 */
const { pathsToModuleNameMapper } = require('ts-jest');
const { compilerOptions } = require('./tsconfig.base.json');

const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }] },
  moduleNameMapper: pathsToModuleNameMapper(compilerOptions.paths, { prefix: '<rootDir>/' }),
  rootDir: __dirname,
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools', '<rootDir>/deploy'],
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['**/*.spec.ts'], testPathIgnorePatterns: ['\\.int\\.spec\\.ts$', '\\.e2e\\.spec\\.ts$', '/node_modules/', '/dist/'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['**/*.int.spec.ts', '**/*.e2e.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
      globalSetup: '<rootDir>/tools/test/global-setup.js',
      globalTeardown: '<rootDir>/tools/test/global-teardown.js',
      // testTimeout is only read at the top level; a setup file sets it for this project.
      setupFilesAfterEnv: ['<rootDir>/tools/test/integration-timeout.js'],
    },
  ],
};
