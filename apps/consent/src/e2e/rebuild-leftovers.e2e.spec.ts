/**
 * Tables a rebuild replaced and the operator kept (`replay projections --keep-old`) are a leftover
 * the service itself drops a week later (ADR 0189): the kept schema is owned by the
 * service's role, and consent drops every one of its `consent_old_<ms>` schemas older than a week,
 * counting each in `rows_pruned_total{table="consent_old"}`.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { advanceClock, eventually, queryDatabase } from '#platform/testing';

const run = promisify(execFile);
const COMMAND = path.resolve(__dirname, '../../../../tools/platformctl/commands/replay-projections.mjs');
const DAY_MS = 24 * 3600 * 1000;
const consentMetrics = () => `http://127.0.0.1:${Number(process.env.TEST_BASE_PORT ?? 4000) + 20}/metrics`;

const ownerOf = async (schema: string) =>
  (await queryDatabase<{ owner: string }>(`select pg_get_userbyid(nspowner) as owner from pg_namespace where nspname = $1`, [schema]))[0]?.owner ?? null;

async function leftoversPruned(): Promise<number> {
  const text = await (await fetch(consentMetrics())).text();
  const line = text.split('\n').find((l) => l.startsWith('rows_pruned_total{') && l.includes('table="consent_old"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('kept rebuild leftovers (e2e)', () => {
  const crafted: string[] = [];
  afterAll(async () => {
    for (const schema of crafted) await queryDatabase(`drop schema if exists "${schema}" cascade`);
  });

  it('are owned by the service, and the service drops those older than a week', async () => {
    const [{ role }] = await queryDatabase<{ role: string }>(
      `select tableowner as role from pg_tables where schemaname = 'consent' and tablename = 'consents'`,
    );
    const report = JSON.parse(
      (await run(process.execPath, [COMMAND, '--service', 'consent', '--keep-old', '--quiet'], { env: process.env })).stdout.trim().split('\n').pop() as string,
    );
    expect(report.oldSchema).toMatch(/^consent_old_\d+$/);
    crafted.push(report.oldSchema);
    expect(await ownerOf(report.oldSchema)).toBe(role);

    // Two more as a rebuild leaves them, named by the operator's wall clock: eight and six days ago.
    const old = `consent_old_${Date.now() - 8 * DAY_MS}`;
    const recent = `consent_old_${Date.now() - 6 * DAY_MS}`;
    for (const schema of [old, recent]) {
      crafted.push(schema);
      await queryDatabase(`create schema "${schema}" authorization "${role}"`);
      await queryDatabase(`create table "${schema}".consents (app_id text primary key)`);
      await queryDatabase(`alter table "${schema}".consents owner to "${role}"`);
    }
    const before = await leftoversPruned();

    // The job runs hourly and whenever the test clock moves.
    await advanceClock(1);
    await eventually(async () => (await ownerOf(old)) === null, 15_000, 200);
    expect(await ownerOf(recent)).toBe(role);
    expect(await ownerOf(report.oldSchema)).toBe(role);
    expect(await leftoversPruned()).toBe(before + 1);
  });
});
