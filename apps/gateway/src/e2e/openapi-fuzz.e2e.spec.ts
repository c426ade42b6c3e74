import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, publicUrl } from '#platform/testing';

const RUNNER = path.resolve(__dirname, '../../../../tools/test/fuzz-run.mjs');

/**
 * Issue 32: 10 000 requests generated from the OpenAPI document and mutated with hostile values,
 * across every public route, with several apps' keys (each app has its own rate limit; a 429 is a
 * valid refusal). No 5xx, every answer with Svc-Request-Id and Svc-Version, every refusal the
 * envelope, no hang. The seed is printed so a failure can be replayed with fuzz-run.mjs.
 */
describe('OpenAPI fuzz (e2e)', () => {
  it('10 000 hostile requests: no 5xx, the envelope and headers on every refusal, no hang', async () => {
    const apps = await Promise.all(Array.from({ length: 6 }, () => createTestApp()));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [RUNNER, '--base', publicUrl(), '--keys', apps.map((a) => a.sandboxKey).join(','), '--count', '10000', '--concurrency', '12'],
      { maxBuffer: 10 * 1024 * 1024 },
    );
    const counts = JSON.parse(stdout.trim().split('\n').at(-1)!);
    // The counts and any examples, in the test output, for whoever replays a failure.
    console.log(JSON.stringify(counts));
    expect(counts.requests).toBe(10_000);
    expect({
      serverErrors: counts.serverErrors,
      withoutEnvelope: counts.withoutEnvelope,
      withoutHeaders: counts.withoutHeaders,
      hangs: counts.hangs,
      transportErrors: counts.transportErrors,
      examples: counts.examples,
    }).toEqual({
      serverErrors: 0,
      withoutEnvelope: 0,
      withoutHeaders: 0,
      hangs: 0,
      transportErrors: 0,
      examples: [],
    });
  }, 180_000);
});
