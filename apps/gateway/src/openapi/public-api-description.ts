import type { RpcClient } from '#platform/kafka';
import type { Clock } from '#platform/clock';
import { publicRoutes } from '../public-api/public-routes';
import type { PublicRoute } from '../public-api/public-route';
import { buildOpenApiDocument, type OpenApiDocument, type OpenApiOptions } from './openapi-document';

/** The defaults a deployment starts with; the build writes the document with these. */
export const DEFAULT_DESCRIPTION_OPTIONS: OpenApiOptions = { docsUrl: 'https://docs.example.com/platform', rateLimit: { rps: 100, burst: 200 } };

/**
 * The public routes as the document sees them: declarations only. Their handlers are never run
 * here, so the dependencies they would call refuse any use.
 */
export function describedRoutes(): PublicRoute[] {
  const unused = new Proxy(
    {},
    {
      get: (_target, name) => {
        throw new Error(`describing the routes must not use their dependencies (${String(name)})`);
      },
    },
  );
  return publicRoutes({ rpc: unused as RpcClient, clock: unused as Clock });
}

/** The document `docs/openapi.json` holds (tools/build/write-api-docs.mjs). */
export function publicApiDescription(options: OpenApiOptions = DEFAULT_DESCRIPTION_OPTIONS): OpenApiDocument {
  return buildOpenApiDocument(describedRoutes(), options);
}
