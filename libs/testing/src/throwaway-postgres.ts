import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A Postgres cluster of a test's own (Debian's binaries, trust auth, 127.0.0.1 only), so a test can
 * stop and start the database under a running service without touching the shared one. Root cannot
 * run postgres: as root the binaries run as the `postgres` user.
 */
export class ThrowawayPostgres {
  private readonly dir: string;
  private readonly bin: string;

  constructor(readonly port: number) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    if (versions.length === 0) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
    this.bin = `/usr/lib/postgresql/${versions[0]}/bin`;
    this.dir = mkdtempSync(path.join(tmpdir(), 'throwaway-pg-'));
    if (process.getuid?.() === 0) chownSync(this.dir, Number(execFileSync('id', ['-u', 'postgres']).toString().trim()), -1);
    this.run('initdb', ['-D', this.data, '-U', 'postgres', '--auth=trust', '-N']);
  }

  /** Admin URL of the cluster's `postgres` database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  start(): void {
    this.run('pg_ctl', [
      '-D',
      this.data,
      '-l',
      path.join(this.dir, 'server.log'),
      '-w',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  }

  /** `immediate`: as a crash or a pulled plug would (no goodbye to the clients). */
  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    this.run('pg_ctl', ['-D', this.data, '-m', mode, '-w', 'stop']);
  }

  destroy(): void {
    try {
      this.stop('immediate');
    } catch {
      // not running
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private get data(): string {
    return path.join(this.dir, 'data');
  }

  private run(tool: string, args: string[]): void {
    const command = path.join(this.bin, tool);
    if (process.getuid?.() === 0) execFileSync('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: 'pipe' });
    else execFileSync(command, args, { stdio: 'pipe' });
  }
}
