#!/usr/bin/env node
/**
 * Generates the SDK's types from the OpenAPI document: docs/openapi.json → libs/sdk/src/generated/openapi.ts
 * (`npm run sdk:types`). The output is committed; `--check` exits 1 when it differs from a fresh
 * generation (a unit test runs it), so the SDK's types cannot drift from the contract.
 *
 *   node libs/sdk/scripts/generate-types.mjs            write the file
 *   node libs/sdk/scripts/generate-types.mjs --check    compare only
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const DOCUMENT = path.join(root, 'docs/openapi.json');
export const OUTPUT = path.join(root, 'libs/sdk/src/generated/openapi.ts');

/** The TypeScript source for one OpenAPI document (parsed JSON). */
export async function generateTypes(document) {
  // The parsed object, not the path: nothing is fetched or resolved beyond the document itself.
  // defaultNonNullable off: a default (expiresInDays = 30, limit = 20) makes a field optional to send, not required.
  const ast = await openapiTS(document, { alphabetize: false, exportType: false, defaultNonNullable: false });
  return COMMENT_HEADER + astToString(ast);
}

async function main() {
  const check = process.argv.includes('--check');
  if (!existsSync(DOCUMENT)) throw new Error(`${path.relative(root, DOCUMENT)} is missing: the build writes it (architecture section 11)`);
  const fresh = await generateTypes(JSON.parse(readFileSync(DOCUMENT, 'utf8')));
  const relative = path.relative(root, OUTPUT);
  if (check) {
    const committed = existsSync(OUTPUT) ? readFileSync(OUTPUT, 'utf8') : '';
    if (committed !== fresh) {
      process.stderr.write(`${relative} is stale: run npm run sdk:types and commit it\n`);
      process.exit(1);
    }
    process.stdout.write(`${relative} matches ${path.relative(root, DOCUMENT)}\n`);
    return;
  }
  mkdirSync(path.dirname(OUTPUT), { recursive: true });
  writeFileSync(OUTPUT, fresh);
  process.stdout.write(`wrote ${relative}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(1);
  });
}
