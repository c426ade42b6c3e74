/**
 * Where `platformctl listen` keeps the cursor of the last event it forwarded, so a run killed
 * outright (SIGKILL, a closed terminal) resumes where it stopped: one small file per key and event
 * filter under the OS temp dir, named by a hash (the key itself is never written). Writes go to a
 * temporary file renamed into place, so a kill mid-write leaves the old cursor, never half of one.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function stateFile(key, events, dir = process.env.PLATFORMCTL_STATE_DIR || path.join(os.tmpdir(), 'platformctl-listen')) {
  const name = createHash('sha256')
    .update(`${key}\n${events.join(',')}`)
    .digest('hex')
    .slice(0, 32);
  return path.join(dir, `${name}.json`);
}

export function readCursor(file) {
  try {
    const cursor = JSON.parse(readFileSync(file, 'utf8')).cursor;
    return typeof cursor === 'string' && cursor ? cursor : null;
  } catch {
    return null;
  }
}

export function writeCursor(file, cursor) {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ cursor, savedAt: new Date().toISOString() }), { mode: 0o600 });
  renameSync(temporary, file);
}
