import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { log } from '#platform/service-kit';
import type { OpenApiDocument } from './openapi-document';

/** A GET that needs no key: the API's own description (architecture section 11). */
export interface ReferenceRoute {
  path: string;
  handle: (req: IncomingMessage, res: ServerResponse) => void;
}

/** Where the build puts the renderer's bundle (tools/build/write-api-docs.mjs), beside the compiled gateway. */
export const REFERENCE_ASSETS_DIR = path.resolve(__dirname, '../../assets');
export const RENDERER_BUNDLE = 'redoc.standalone.js';

/**
 * The reference page: Redoc's standalone bundle, served by the gateway itself (no CDN), rendering the
 * document next to it. Relative URLs keep it working behind any prefix or host.
 */
export const REFERENCE_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Business Messaging Platform API reference</title>
    <style>body { margin: 0; }</style>
  </head>
  <body>
    <redoc spec-url="openapi.json" expand-responses="200,201,202" path-in-middle-panel="true"></redoc>
    <script src="docs/${RENDERER_BUNDLE}"></script>
  </body>
</html>
`;

/** Serialised once at start: every request is served from memory with a strong ETag. */
export function referenceRoutes(document: OpenApiDocument, assetsDir = REFERENCE_ASSETS_DIR): ReferenceRoute[] {
  const json = staticBody(JSON.stringify(document), 'application/json; charset=utf-8');
  const page = staticBody(REFERENCE_PAGE, 'text/html; charset=utf-8');
  const bundlePath = path.join(assetsDir, RENDERER_BUNDLE);
  const bundle = existsSync(bundlePath) ? staticBody(readFileSync(bundlePath), 'text/javascript; charset=utf-8') : null;
  if (!bundle) log('warn', 'the API reference renderer is missing; run the build', { path: bundlePath });
  return [
    { path: '/openapi.json', handle: (req, res) => json(req, res) },
    { path: '/docs', handle: (req, res) => page(req, res) },
    ...(bundle ? [{ path: `/docs/${RENDERER_BUNDLE}`, handle: (req: IncomingMessage, res: ServerResponse) => bundle(req, res) }] : []),
  ];
}

function staticBody(content: string | Buffer, contentType: string) {
  const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  return (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.headers['if-none-match'] === etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', contentType);
    res.setHeader('Content-Length', bytes.length);
    res.end(req.method === 'HEAD' ? undefined : bytes);
  };
}
