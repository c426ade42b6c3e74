import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Where `platformctl listen` keeps its cursor: each case runs listen-state.mjs in a Node child (the
 * CLI is plain ES modules) with its own HOME, XDG_STATE_HOME and TMPDIR, all fresh temporary folders.
 */
const STATE_MODULE = pathToFileURL(path.join(__dirname, 'listen-state.mjs')).href;
const CLI = path.join(__dirname, '..', 'platformctl.mjs');

const made: string[] = [];
function folder(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'listen-state-'));
  made.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function inNode(env: Record<string, string>, body: string): any {
  const script = `import * as state from ${JSON.stringify(STATE_MODULE)};\nconst result = await (async () => { ${body} })();\nprocess.stdout.write(JSON.stringify(result ?? null));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '', ...env } }).toString());
}

const mode = (file: string) => statSync(file).mode & 0o777;
const write = "const file = state.stateFile('qk_sb_a', ['message.status']); state.writeCursor(file, 'ls_1.2'); return file;";

describe('platformctl listen: where the cursor is kept', () => {
  it('in $XDG_STATE_HOME/platformctl, a folder only the user may open (0700), the file 0600; nothing under the temp dir', () => {
    const [home, xdg, tmp] = [folder(), folder(), folder()];
    const file: string = inNode({ HOME: home, XDG_STATE_HOME: xdg, TMPDIR: tmp }, write);
    expect(path.dirname(file)).toBe(path.join(xdg, 'platformctl'));
    expect(mode(path.dirname(file))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).cursor).toBe('ls_1.2');
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(home)).toEqual([]);
  });

  it('in ~/.local/state/platformctl without XDG_STATE_HOME (or with a relative one)', () => {
    for (const xdg of [undefined, 'relative/state']) {
      const [home, tmp] = [folder(), folder()];
      const file: string = inNode({ HOME: home, TMPDIR: tmp, ...(xdg ? { XDG_STATE_HOME: xdg } : {}) }, write);
      expect(path.dirname(file)).toBe(path.join(home, '.local', 'state', 'platformctl'));
      expect(mode(path.dirname(file))).toBe(0o700);
      expect(readdirSync(tmp)).toEqual([]);
    }
  });

  it('narrows a state folder found open to others to 0700', () => {
    const xdg = folder();
    mkdirSync(path.join(xdg, 'platformctl'));
    chmodSync(path.join(xdg, 'platformctl'), 0o777);
    inNode({ HOME: folder(), XDG_STATE_HOME: xdg, TMPDIR: folder() }, write);
    expect(mode(path.join(xdg, 'platformctl'))).toBe(0o700);
  });

  it('never writes or reads through a link planted at the state file, or at the temporary name an earlier version used', () => {
    const xdg = folder();
    const env = { HOME: folder(), XDG_STATE_HOME: xdg, TMPDIR: folder() };
    const victim = path.join(folder(), 'victim');
    writeFileSync(victim, JSON.stringify({ cursor: 'planted' }));
    const result = inNode(
      { ...env, VICTIM: victim },
      `const file = state.stateFile('qk_sb_a', ['message.status']);
       const { mkdirSync, symlinkSync } = await import('node:fs');
       mkdirSync((await import('node:path')).dirname(file), { recursive: true, mode: 0o700 });
       symlinkSync(process.env.VICTIM, file);
       symlinkSync(process.env.VICTIM, file + '.' + process.pid + '.tmp');
       const before = state.readCursor(file);
       state.writeCursor(file, 'ls_1.2');
       return { file, before, after: state.readCursor(file) };`,
    );
    // A planted cursor is not taken (it could skip events); the write replaced the link, not its target.
    expect(result.before).toBeNull();
    expect(readFileSync(victim, 'utf8')).toBe(JSON.stringify({ cursor: 'planted' }));
    expect(lstatSync(result.file).isSymbolicLink()).toBe(false);
    expect(result.after).toBe('ls_1.2');
  });

  it('refuses a state folder that is a link or is not the user’s own (exit 3), and changes nothing there', () => {
    const xdg = folder();
    const elsewhere = folder();
    symlinkSync(elsewhere, path.join(xdg, 'platformctl'));
    const env = { HOME: folder(), XDG_STATE_HOME: xdg, TMPDIR: folder() };
    const viaLink = inNode(env, `try { ${write} } catch (error) { return { exitCode: error.exitCode, message: error.message }; }`);
    expect(viaLink).toEqual({ exitCode: 3, message: expect.stringContaining('is a symbolic link') });
    expect(readdirSync(elsewhere)).toEqual([]);

    const own = folder();
    const notOwned = inNode(
      { ...env, XDG_STATE_HOME: own },
      `try { state.ensureStateDir(state.stateDir(), process.getuid() + 1); return null; } catch (error) { return { exitCode: error.exitCode, message: error.message }; }`,
    );
    expect(notOwned).toEqual({ exitCode: 3, message: expect.stringContaining('not to you') });

    // The command refuses before it connects anywhere.
    const run = spawnSync(
      process.execPath,
      [CLI, 'listen', '--forward-to', 'http://127.0.0.1:9/hook', '--api-url', 'http://127.0.0.1:9/platform/v1', '--key', 'qk_sb_x'],
      {
        env: { PATH: process.env.PATH ?? '', ...env },
        encoding: 'utf8',
      },
    );
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 3, stderr: expect.stringContaining('is a symbolic link') });
  });
});
