import { spawnSync } from 'node:child_process';
import path from 'node:path';

const SCRIPT = path.resolve(__dirname, '../scripts/generate-types.mjs');

describe('generated OpenAPI types', () => {
  it('src/generated/openapi.ts equals a fresh generation from docs/openapi.json (npm run sdk:types)', () => {
    // The generator is ESM (openapi-typescript 7): run it as the npm script does, in check mode.
    const run = spawnSync(process.execPath, [SCRIPT, '--check'], { encoding: 'utf8', timeout: 60_000 });
    expect({ status: run.status, stderr: run.stderr.trim() }).toEqual({ status: 0, stderr: '' });
  });
});
