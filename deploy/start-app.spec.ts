/**
 * deploy/start-app.sh, the one place the apps' runtime settings live (docs/adr/0207-apps-run-with-a-bounded-heap.md):
 * it bounds V8's heap and glibc's arenas, lets flags given after it win, and every start path of
 * the repository (the dev, test and bench stacks and the image) goes through it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = path.join(ROOT, 'deploy', 'start-app.sh');
const MB = 1024 * 1024;

/** What a script run through the launcher sees of its own runtime. */
function runtimeThroughLauncher(...flags: string[]): { heapLimitMb: number; semiSpaceMb: number; arenas: string | undefined } {
  const script = `const v8 = require('v8');
    console.log(JSON.stringify({ heapLimit: v8.getHeapStatistics().heap_size_limit, arenas: process.env.MALLOC_ARENA_MAX, argv: process.execArgv }));`;
  const env = { ...process.env };
  delete env.MALLOC_ARENA_MAX;
  delete env.NODE_OPTIONS;
  const out = JSON.parse(execFileSync('/bin/sh', [LAUNCHER, process.execPath, ...flags, '-e', script], { encoding: 'utf8', env })) as {
    heapLimit: number;
    arenas?: string;
    argv: string[];
  };
  // The last --max-semi-space-size given is the one V8 keeps.
  const semi = out.argv.filter((flag) => flag.startsWith('--max-semi-space-size=')).pop();
  return { heapLimitMb: out.heapLimit / MB, semiSpaceMb: semi ? Number(semi.split('=')[1]) : NaN, arenas: out.arenas };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (name === 'node_modules') return [];
    if (statSync(file).isDirectory()) return sourceFiles(file);
    return /\.(ts|mjs|js)$/.test(name) && !/\.spec\.ts$/.test(name) ? [file] : [];
  });
}

describe('deploy/start-app.sh', () => {
  it('bounds the heap (old space and young generation) and keeps glibc to two malloc arenas', () => {
    const { heapLimitMb, semiSpaceMb, arenas } = runtimeThroughLauncher();
    // V8's own default on a machine of 24 GiB is over 4 GB.
    expect(heapLimitMb).toBeLessThanOrEqual(256);
    expect(semiSpaceMb).toBeLessThanOrEqual(16);
    expect(arenas).toBe('2');
  });

  it('lets flags given after it win, so profiling and a one-off larger heap need no edit of it', () => {
    expect(runtimeThroughLauncher('--max-old-space-size=512').heapLimitMb).toBeGreaterThan(512);
  });

  it('is how every script of the repository that starts an app starts it', () => {
    const starts = [...sourceFiles(path.join(ROOT, 'tools')), ...sourceFiles(path.join(ROOT, 'libs'))].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bspawn\([^;]*?src\/main\.js[^;]*;/g)].map((m) => ({ file: path.relative(ROOT, file), call: m[0] })),
    );
    expect(starts.length).toBeGreaterThanOrEqual(2);
    for (const { file, call } of starts) expect({ file, throughLauncher: /APP_LAUNCHER|start-app\.sh/.test(call) }).toEqual({ file, throughLauncher: true });
  });
});
