/**
 * Where `platformctl listen` keeps the cursor of the last event it forwarded, so a run killed
 * outright (SIGKILL, a closed terminal) resumes where it stopped: one small file per key and event
 * filter, named by a hash (the key itself is never written), in the user's own state folder
 * ($XDG_STATE_HOME/platformctl, else ~/.local/state/platformctl). Not under the shared temp dir: there
 * another user could plant the file (a cursor that skips events) or a link at its name (a write
 * through it). The folder is the user's alone (0700); a file is written to a fresh temporary name and
 * renamed into place (a kill mid-write leaves the old cursor), and never opened through a link.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, constants, chmodSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { refused } from './cli.mjs';

/** $XDG_STATE_HOME/platformctl, or ~/.local/state/platformctl (a relative XDG_STATE_HOME is ignored, as the XDG spec says). */
export function stateDir(env = process.env) {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.local', 'state');
  return path.join(base, 'platformctl');
}

export function stateFile(key, events, dir = stateDir()) {
  const name = createHash('sha256')
    .update(`${key}\n${events.join(',')}`)
    .digest('hex')
    .slice(0, 32);
  return path.join(dir, `listen-${name}.json`);
}

/**
 * What is wrong with the state folder as found (lstat, so a link is seen as one), or null: it must be
 * a real directory of `uid`. A mode open to others is not wrong here: the caller narrows it.
 * @param {import('node:fs').Stats} stat
 */
export function stateDirProblem(stat, uid) {
  if (stat.isSymbolicLink()) return 'is a symbolic link';
  if (!stat.isDirectory()) return 'is not a directory';
  if (uid !== undefined && stat.uid !== uid) return `belongs to uid ${stat.uid}, not to you (uid ${uid})`;
  return null;
}

/** Creates the folder 0700 (its parents too), or checks the one there: refused unless it is the user's own directory; a looser mode is narrowed. */
export function ensureStateDir(dir, uid = process.getuid?.()) {
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if (error.code !== 'EEXIST') throw error;
  }
  const stat = lstatSync(dir);
  const problem = stateDirProblem(stat, uid);
  if (problem) throw refused(`the state folder ${dir} ${problem}; remove it (platformctl recreates it) or set XDG_STATE_HOME`);
  if ((stat.mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
}

export function readCursor(file) {
  let fd;
  try {
    // O_NOFOLLOW: a link planted at the name is not read (ELOOP), so it counts as no cursor.
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    const cursor = JSON.parse(readFileSync(fd, 'utf8')).cursor;
    return typeof cursor === 'string' && cursor ? cursor : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function writeCursor(file, cursor) {
  ensureStateDir(path.dirname(file));
  // A name nobody can have prepared (O_EXCL refuses anything there, a link included); the rename then
  // replaces whatever is at the state file's name, a link itself rather than its target.
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, JSON.stringify({ cursor, savedAt: new Date().toISOString() }));
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
