/**
 * Resolves the `@platform/*` path aliases of tsconfig.base.json inside the compiled dist/ tree, so
 * compiled apps run with plain `node -r ./tools/build/register-paths.cjs dist/apps/<app>/src/main.js`.
 */
const Module = require('node:module');
const path = require('node:path');
const { compilerOptions } = require('../../tsconfig.base.json');

const distRoot = path.resolve(__dirname, '../../dist');
const aliases = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [alias, path.join(distRoot, target.replace(/\.ts$/, '.js'))]),
);

// Node's internal resolver (not in its types): the one hook that CommonJS resolution goes through.
const internals = /** @type {{ _resolveFilename: (request: string, ...rest: unknown[]) => string }} */ (/** @type {unknown} */ (Module));
const originalResolve = internals._resolveFilename;
internals._resolveFilename = function resolveWithAliases(request, ...rest) {
  const target = aliases[request];
  return originalResolve.call(this, target ?? request, ...rest);
};
