import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as a collector received it (OTLP/JSON: ids are hex strings). */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** String, number and boolean attributes. */
  attributes: Record<string, string | number | boolean>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };

interface OtlpJson {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value?: { stringValue?: string } }[] };
    scopeSpans?: {
      spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; attributes?: { key: string; value?: OtlpValue }[] }[];
    }[];
  }[];
}

/**
 * A stand-in OpenTelemetry collector for the test stack: takes OTLP/HTTP JSON on POST /v1/traces,
 * keeps the most recent spans, and answers GET /spans?traceId=… so a test (in another process) can
 * follow one trace across every service.
 */
export class OtlpReceiver {
  private readonly spans: ReceivedSpan[] = [];

  private constructor(
    private readonly server: Server,
    private readonly keep: number,
  ) {
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://receiver.invalid');
      if (req.method === 'POST' && url.pathname === '/v1/traces') {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          try {
            this.take(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpJson);
            res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
          } catch {
            res.writeHead(400).end();
          }
        });
        return;
      }
      if (req.method === 'GET' && url.pathname === '/spans') {
        const traceId = url.searchParams.get('traceId');
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(this.spans.filter((s) => s.traceId === traceId)));
        return;
      }
      res.writeHead(404).end();
    });
  }

  static async start(port: number, keep = 50_000): Promise<OtlpReceiver> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return new OtlpReceiver(server, keep);
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(body: OtlpJson): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service = resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? 'unknown';
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          const attributes: ReceivedSpan['attributes'] = {};
          for (const { key, value } of span.attributes ?? []) {
            const v = value?.stringValue ?? value?.boolValue ?? value?.doubleValue ?? (value?.intValue !== undefined ? Number(value.intValue) : undefined);
            if (v !== undefined) attributes[key] = v;
          }
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || null,
            name: span.name,
            kind: span.kind ?? 0,
            attributes,
          });
        }
      }
    }
    if (this.spans.length > this.keep) this.spans.splice(0, this.spans.length - this.keep);
  }
}

/** The spans of one trace the test stack's collector has received so far. */
export async function spansOfTrace(traceId: string): Promise<ReceivedSpan[]> {
  const url = process.env.TEST_OTLP_URL;
  if (!url) throw new Error('TEST_OTLP_URL is not set: run e2e tests through jest (global setup starts the collector)');
  return (await fetch(`${url}/spans?traceId=${traceId}`)).json() as Promise<ReceivedSpan[]>;
}
