/**
 * Jest 29 loads modules as CommonJS, while some dependencies ship only as ES modules (file-type and
 * the tokenizers it reads with). Node 24 itself requires them as they are; under Jest, this
 * transform compiles them to CommonJS with the repository's own TypeScript (no type checking).
 */
'use strict';
const crypto = require('node:crypto');
const ts = require('typescript');

const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, allowJs: true, esModuleInterop: true, inlineSourceMap: true };

module.exports = {
  process(source, filename) {
    return { code: ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha256').update(ts.version).update('\0').update(filename).update('\0').update(source).digest('hex');
  },
};
