const { existsSync, readFileSync, rmSync } = require('node:fs');
const path = require('node:path');

/** Stops the test stack, and any process a test started to replace one of it (crash tests). */
module.exports = async () => {
  const stack = await import(path.join(path.resolve(__dirname, '../..'), 'tools/dev/stack.mjs'));
  await stack.stopChildren(Object.values(globalThis.__TEST_STACK__ ?? {}));
  await globalThis.__TEST_OTLP__?.close();
  const extra = process.env.TEST_EXTRA_PIDS_FILE;
  if (extra && existsSync(extra)) {
    const pids = JSON.parse(readFileSync(extra, 'utf8'));
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    const deadline = Date.now() + 15_000;
    const alive = (pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    while (pids.some(alive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
    rmSync(extra, { force: true });
    rmSync(extra.replace(/\.json$/, '') + '-by-app.json', { force: true });
  }
};
