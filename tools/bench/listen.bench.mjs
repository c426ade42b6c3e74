/**
 * `platformctl listen` forwarding throughput: one listen session gets a burst of N events at once
 * (public events and their listen records written straight into the dispatcher's tables in one
 * transaction, as the public-events consumer writes them, then the commit's notification), and the
 * CLI carries them over the gateway's event stream (long polls to the dispatcher over Kafka
 * request/reply) to a local plain-HTTP receiver, signing each. The figure is events/s from the
 * commit to the last event at the receiver, with p50/p99 of each event's time from the commit, the
 * machine and the cores each process group used, as in the other benches.
 * Usage: npm run bench:listen [-- --events 20000]
 * (BENCH_BASE_PORT / BENCH_DATABASE move it beside another bench on the same machine.)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ROOT } from '../dev/stack.mjs';
import { benchEnv, seedApp, trackProcess, watchMachine, withBenchStack, seedPublicEvents } from './bench-stack.mjs';
import { percentile } from './latency.mjs';

const { values } = parseArgs({ options: { events: { type: 'string', default: '20000' } } });
const total = Number(values.events);

// The local app: counts what arrives and when, answers 200 at once.
const arrivals = [];
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    arrivals.push(performance.now());
    res.writeHead(200, { 'content-length': '0' }).end();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve(undefined)));
const forwardTo = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (receiver.address()).port}/hook`;
const stateDir = mkdtempSync(path.join(os.tmpdir(), 'listen-bench-'));

try {
  await withBenchStack(async ({ publicUrl, admin }) => {
    const { appId, key } = await seedApp(admin, 'Listen');
    const cli = spawn(
      process.execPath,
      [
        path.join(ROOT, 'tools/platformctl/platformctl.mjs'),
        'listen',
        '--forward-to',
        forwardTo,
        '--api-url',
        publicUrl,
        '--key',
        key,
        '--events',
        'message.status',
      ],
      {
        env: { PATH: process.env.PATH, XDG_STATE_HOME: stateDir },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    trackProcess(cli.pid, 'platformctl listen');
    let lines = 0;
    let ready;
    const readyLine = new Promise((resolve) => (ready = resolve));
    cli.stdout.on('data', (chunk) => {
      const text = chunk.toString('utf8');
      if (text.includes('Ready. Your webhook signing secret is')) ready();
      lines += text.split('\n').length - 1;
    });
    await readyLine;

    const db = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
    await db.connect();
    const { rows: sessions } = await db.query(`select session_id from webhook_dispatcher.listen_sessions where app_id = $1`, [appId]);
    const listenSessionId = sessions[0].session_id;
    const now = new Date();
    await db.query('begin');
    await seedPublicEvents(db, { appId, tag: 'LISTEN', count: total, now });
    await db.query(
      `insert into webhook_dispatcher.listen_events (session_id, event_id, created_at)
       select $1, 'evt_LISTEN' || lpad(i::text, 20, '0'), $2 from generate_series(1, $3::int) as i order by i`,
      [listenSessionId, now, total],
    );
    await db.query(`select pg_notify('webhook_dispatcher_listen', $1)`, [listenSessionId]);
    const arrivedBefore = arrivals.length;
    const watched = watchMachine();
    const started = performance.now();
    await db.query('commit');
    while (arrivals.length - arrivedBefore < total) await new Promise((resolve) => setTimeout(resolve, 50));
    const seconds = (performance.now() - started) / 1000;
    const machine = watched();
    const latencies = arrivals
      .slice(arrivedBefore)
      .map((t) => t - started)
      .sort((a, b) => a - b);
    console.log(
      JSON.stringify(
        {
          bench: 'platformctl listen (burst forwarded to a local receiver)',
          events: total,
          seconds: Number(seconds.toFixed(2)),
          eventsPerSecond: Math.round(total / seconds),
          sinceCommitMs: {
            p50: Math.round(percentile(latencies, 50)),
            p99: Math.round(percentile(latencies, 99)),
            max: Math.round(latencies[latencies.length - 1]),
          },
          cliLinesPrinted: lines,
          ...machine,
        },
        null,
        2,
      ),
    );
    await db.end();
    cli.kill('SIGINT');
    await new Promise((resolve) => cli.on('exit', resolve));
  });
} finally {
  receiver.close();
  receiver.closeAllConnections();
  rmSync(stateDir, { recursive: true, force: true });
}
