/** ES-module-only packages Jest must compile to CommonJS (tools/test/esm-to-commonjs.transform.js). */
const ESM_ONLY = ['file-type', 'strtok3', 'token-types', 'uint8array-extras', '@tokenizer/inflate', '@borewit/text-codec', 'cookie'];

/**
 * Three levels (DEVELOPERS guide): unit (*.spec.ts, pure, no I/O), integration (*.int.spec.ts, real
 * Postgres/Kafka/S3Proxy) and e2e (*.e2e.spec.ts, HTTP against the running apps).
 */
const common = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
    [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: '<rootDir>/tools/test/esm-to-commonjs.transform.js',
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  // `#platform/*` resolves through package.json "imports"; the platform-source condition picks the
  // libraries' TypeScript sources instead of their compiled dist/ files.
  testEnvironmentOptions: { customExportConditions: ['platform-source', 'node', 'node-addons'] },
  rootDir: __dirname,
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools', '<rootDir>/deploy'],
};

module.exports = {
  // Shards balanced by the time their files take (npm test runs the integration tests in two).
  testSequencer: '<rootDir>/tools/test/shard-sequencer.js',
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['\\.int\\.spec\\.ts$', '\\.e2e\\.spec\\.ts$', '/node_modules/', '/dist/'],
    },
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
