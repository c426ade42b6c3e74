import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestApp, publicUrl } from '#platform/testing';

/**
 * The published shape of @platform/sdk: `npm pack` in libs/sdk, installed offline (it has no
 * dependencies) into an empty project outside the monorepo, then used from plain Node and from
 * strict TypeScript against the running stack.
 */

const ROOT = path.resolve(__dirname, '../../../..');
const SDK_DIR = path.join(ROOT, 'libs/sdk');
const scratch: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', ...env },
    timeout: 120_000,
  });
}

afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

describe('@platform/sdk as a package (npm pack)', () => {
  let tarball: string;
  let project: string;

  beforeAll(() => {
    const packDir = tempDir('sdk-pack-');
    // prepack compiles src/ to dist/ with the package's own tsconfig.
    run('npm', ['pack', '--pack-destination', packDir], SDK_DIR);
    const [file] = readdirSync(packDir).filter((name) => name.endsWith('.tgz'));
    tarball = path.join(packDir, file);

    project = tempDir('sdk-consumer-');
    run('npm', ['init', '-y'], project);
    run('npm', ['install', '--offline', tarball], project);
  });

  it('ships only the compiled entry, its types, the README and package.json, with no runtime dependency', () => {
    expect(path.basename(tarball)).toBe('platform-sdk-0.1.0.tgz');
    const files = run('tar', ['-tzf', tarball], project).trim().split('\n').sort();
    expect(files).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/README.md',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/generated/openapi.d.ts',
      ]),
    );
    expect(files.filter((file) => !/^package\/(package\.json|README\.md|dist\/.+\.(js|d\.ts))$/.test(file))).toEqual([]);
    expect(files.filter((file) => /spec|test-helpers/.test(file))).toEqual([]);

    const installed = JSON.parse(readFileSync(path.join(project, 'node_modules/@platform/sdk/package.json'), 'utf8'));
    expect(installed).toMatchObject({ name: '@platform/sdk', version: '0.1.0', main: 'dist/index.js', types: 'dist/index.d.ts', engines: { node: '>=20' } });
    expect(installed.dependencies ?? {}).toEqual({});
    expect(readdirSync(path.join(project, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['@platform']);
  });

  it('is required from plain Node with its four entry points, and pings the running stack', async () => {
    const app = await createTestApp();
    writeFileSync(
      path.join(project, 'check.cjs'),
      `const sdk = require('@platform/sdk');
const found = Object.fromEntries(['PlatformClient', 'PlatformError', 'verifyWebhook', 'answerHandshake'].map((name) => [name, typeof sdk[name]]));
const client = new sdk.PlatformClient({ apiKey: process.env.PLATFORM_API_KEY, baseUrl: process.env.PLATFORM_API_URL });
client.ping().then(
  (pong) => console.log(JSON.stringify({ exports: found, pong, handshake: sdk.answerHandshake('svc.mode=subscribe&svc.verify_token=t0k3n-abc&svc.challenge=c1', 't0k3n-abc') })),
  (error) => { console.error(error); process.exit(1); },
);
`,
    );
    const out = JSON.parse(run(process.execPath, ['check.cjs'], project, { PLATFORM_API_KEY: app.sandboxKey, PLATFORM_API_URL: publicUrl() }));
    expect(out.exports).toEqual({ PlatformClient: 'function', PlatformError: 'function', verifyWebhook: 'function', answerHandshake: 'function' });
    expect(out.pong).toMatchObject({ ok: true, appId: app.appId, environment: 'sandbox' });
    expect(out.handshake).toEqual({ ok: true, status: 200, body: 'c1' });
  });

  it('type-checks a strict TypeScript consumer against the shipped .d.ts (no skipLibCheck)', () => {
    writeFileSync(
      path.join(project, 'consumer.ts'),
      `import { PlatformClient, PlatformError, verifyWebhook, type WebhookEvent } from '@platform/sdk';
export async function main(client: PlatformClient, appUserId: string): Promise<string> {
  try {
    const sent = await client.messages.send({ to: { appUserId }, type: 'text', text: 'hi' }, { idempotencyKey: 'order-1' });
    for await (const consent of client.consents.list({ status: 'opted_in' })) void consent.appUserId;
    return sent.id + sent.lastResponse.status;
  } catch (e) {
    if (e instanceof PlatformError && e.code === 'consent_required') return e.type;
    throw e;
  }
}
export function receive(body: Buffer, headers: Record<string, string>): string {
  const event: WebhookEvent = verifyWebhook(body, headers, ['whsec_a', 'whsec_b']);
  return event.type === 'message.received' ? event.data.from : event.type;
}
`,
    );
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    const args = [
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'commonjs',
      '--moduleResolution',
      'node',
      '--types',
      'node',
      '--typeRoots',
      path.join(ROOT, 'node_modules/@types'),
      'consumer.ts',
    ];
    expect(() => run(process.execPath, [tsc, ...args], project)).not.toThrow();
  });
});
