/**
 * Part of `npm run build`, after tsc: writes the public API's OpenAPI document to docs/openapi.json
 * (from the compiled route table, DTOs and contracts: the same code the gateway serves it from) and
 * copies the reference page's renderer next to the compiled gateway, which serves it (no CDN).
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
require('reflect-metadata');

const { publicApiDescription } = require(path.join(ROOT, 'dist/apps/gateway/src/openapi/public-api-description.js'));
const { REFERENCE_ASSETS_DIR, RENDERER_BUNDLE } = require(path.join(ROOT, 'dist/apps/gateway/src/openapi/reference-routes.js'));

const DOCUMENT_PATH = path.join(ROOT, 'docs/openapi.json');
const text = JSON.stringify(publicApiDescription(), null, 2) + '\n';

fs.mkdirSync(path.dirname(DOCUMENT_PATH), { recursive: true });
fs.writeFileSync(DOCUMENT_PATH, text);
fs.mkdirSync(REFERENCE_ASSETS_DIR, { recursive: true });
fs.copyFileSync(require.resolve(`redoc/bundles/${RENDERER_BUNDLE}`), path.join(REFERENCE_ASSETS_DIR, RENDERER_BUNDLE));
process.stdout.write(`wrote ${path.relative(ROOT, DOCUMENT_PATH)} and the reference renderer\n`);
