/**
 * Lets a plain `node` child process of an integration test require the libraries' TypeScript sources
 * directly: `.ts` files are transpiled in memory with the repository's own `typescript` (no type
 * checking, like ts-jest with isolatedModules). The child is started with `--conditions=platform-source`,
 * so the `#platform/*` imports of package.json resolve to `libs/<name>/src`. Test-only; nothing is written to disk and `dist/` is never involved,
 * so the child always runs exactly the sources the test itself runs.
 */
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const ts = require('typescript');

const transpileOptions = {
  module: ts.ModuleKind.CommonJS,
  target: ts.ScriptTarget.ES2022,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  inlineSourceMap: true,
  inlineSources: true,
};

// Replaces Node's own `.ts` handling (type stripping cannot compile parameter properties).
Module._extensions['.ts'] = function compileTypeScript(module, filename) {
  const source = fs.readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions: transpileOptions, fileName: filename });
  module._compile(outputText, filename);
};
