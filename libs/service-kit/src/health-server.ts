import { createServer, type Server, type ServerResponse } from 'node:http';
import { log } from './logger';
import { METRICS_CONTENT_TYPE, metricsText, readinessAnswer } from './health-checks';
import type { ServiceRuntime } from './service-runtime';

/**
 * /healthz, /readyz and /metrics on a port of their own, for a service whose own port faces people
 * (the console): the kubelet's probes and Prometheus reach this one, the ingress does not. Nothing
 * else answers here (404).
 */
export async function startHealthServer(runtime: ServiceRuntime, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 404, { ok: false, error: 'not_found' });
    const service = runtime.config.serviceName;
    if (path === '/healthz') return json(res, 200, { ok: true, service });
    if (path === '/readyz')
      return void readinessAnswer(runtime).then(
        (answer) => json(res, answer.status, answer.body),
        () => json(res, 503, { ok: false, service }),
      );
    if (path === '/metrics')
      return void metricsText(runtime).then(
        (text) => {
          res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE });
          res.end(text);
        },
        (error) => {
          log('warn', 'metrics could not be rendered', { error: String((error as Error)?.message ?? error) });
          json(res, 500, { ok: false, service });
        },
      );
    json(res, 404, { ok: false, error: 'not_found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  log('info', 'internal port listening (/healthz, /readyz, /metrics)', { service: runtime.config.serviceName, host, port });
  return server;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}
