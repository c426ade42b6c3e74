// ESLint flat config for the whole monorepo (`npm run lint` = `eslint .`).
//
// - typescript-eslint "recommended" without type information (fast: no TS program per file);
// - eslint-config-prettier last, so formatting is never a lint concern;
// - @nx/enforce-module-boundaries with the tags of the project.json files:
//     type:app | type:contracts | type:util | type:infra | type:testing   (what a project is)
//     type:sdk (published on its own: depends on no lib; its tests may use type:testing)
//     scope:<app> | scope:shared                                          (who may use it)
//   so apps never import each other, and libs only import "lower" libs.
import { defineConfig } from 'eslint/config';
import nx from '@nx/eslint-plugin';
import { createProjectGraphAsync } from '@nx/devkit';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// The boundary rule reads Nx's *cached* project graph and silently skips itself ("No cached
// ProjectGraph is available") when there is none, e.g. on a fresh clone or in CI when eslint runs
// before any nx command. Build (or refresh) the cache first so the rule always runs.
try {
  await createProjectGraphAsync({ exitOnError: false });
} catch (error) {
  console.warn(`eslint.config.mjs: could not compute the Nx project graph (${error?.message ?? error}); @nx/enforce-module-boundaries may be skipped`);
}

/** The globals a Node ES module script may use (the `globals` package is not a dependency of the project). */
const NODE_GLOBALS = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'fetch',
    'performance',
    'structuredClone',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'queueMicrotask',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'Response',
    'Request',
    'Headers',
    'WebSocket',
    'Blob',
    'FormData',
  ].map((name) => [name, 'readonly']),
);

const APPS = ['gateway', 'messaging', 'consent', 'media', 'profile', 'webhook-dispatcher', 'chat-sim', 'console'];

/** Files allowed to use @platform/testing (test code only). */
const TEST_FILES = ['**/*.spec.ts', '**/*.test-helpers.ts', 'libs/*/src/testing/**/*.ts', 'libs/testing/**/*.ts'];

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/.data/**',
      '**/coverage/**',
      '**/.nx/**',
      '**/tmp/**',
      // CommonJS helpers (jest config, path registration) stay unlinted; ES modules are linted below.
      '**/*.js',
      '**/*.cjs',
    ],
  },
  {
    // tools/**/*.mjs and the other ES module scripts: Node's globals, undefined names and unused bindings.
    files: ['**/*.mjs'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: NODE_GLOBALS },
    rules: { 'no-undef': 'error', 'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' }] },
  },
  ...nx.configs['flat/base'],
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: [
            // What a project is.
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:infra', 'type:testing'] },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contracts'] },
            { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:infra', 'type:util', 'type:contracts'] },
            { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'type:infra', 'type:util', 'type:contracts', 'type:sdk'] },
            // The SDK ships alone (npm pack): no monorepo lib may end up in it; @platform/testing stays in tests (rule below).
            { sourceTag: 'type:sdk', onlyDependOnLibsWithTags: ['type:testing'] },
            // Who may use it: every app only the shared libs, so apps can never import each other.
            ...APPS.map((app) => ({ sourceTag: `scope:${app}`, onlyDependOnLibsWithTags: ['scope:shared'] })),
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
    },
  },
  {
    // type:app may depend on type:testing for the boundary rule, but only test code may import it.
    files: ['**/*.ts'],
    ignores: TEST_FILES,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '#platform/testing', message: '#platform/testing is for *.spec.ts / *.test-helpers.ts files only.' }],
          patterns: [{ group: ['#platform/testing/*'], message: '#platform/testing is for *.spec.ts / *.test-helpers.ts files only.' }],
        },
      ],
      // A double cast turns off the type check where it matters most (payloads, transaction handles).
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSAsExpression[expression.type="TSAsExpression"][expression.typeAnnotation.type="TSUnknownKeyword"]',
          message: 'No `as unknown as` outside tests: type the value where it comes from (see PostgresOrm, queryEach).',
        },
      ],
    },
  },
  prettier,
);
