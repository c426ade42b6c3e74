/**
 * The headless browser of the console's end-to-end tests: Debian's `chromium` package, installed with
 * apt-get when missing (Playwright's own browser download is not used: it needs hosts this project's
 * machines may not reach). Driven by playwright-core through `executablePath`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Installs Debian's chromium when it is missing; returns its path. */
export function ensureChromium() {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = asRoot ? [] : ['sudo', '-n'];
  const apt = (args) => {
    const [command, ...rest] = [...sudo, 'apt-get', ...args];
    return spawnSync(command, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  };
  process.stdout.write(`\ninstalling Debian's chromium (${CHROMIUM} is missing) for the console's browser tests…\n`);
  // The package lists may be stale on a fresh machine: refresh them once if the first try fails.
  if (!apt(['install', '-y', '--no-install-recommends', 'chromium']) && !(apt(['update']) && apt(['install', '-y', '--no-install-recommends', 'chromium']))) {
    throw new Error(`could not install chromium with apt-get; install Debian's chromium package (or set CHROMIUM_PATH)`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium but ${CHROMIUM} is not there; set CHROMIUM_PATH`);
  return CHROMIUM;
}
