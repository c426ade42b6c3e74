/**
 * A progress bar on stderr for long runs: redrawn in place on a terminal, a line every 10 % (and
 * at the end) elsewhere, so logs of CI jobs stay short and stdout stays clean for --json.
 */
export function progressBar(label, total, stream = process.stderr) {
  let done = 0;
  let lastDecile = -1;
  const width = 30;
  const render = (final = false) => {
    const ratio = total === 0 ? 1 : Math.min(1, done / total);
    const text = `${label} [${'#'.repeat(Math.round(ratio * width)).padEnd(width, '-')}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${done}/${total}`;
    if (stream.isTTY) stream.write(`\r${text}${final ? '\n' : ''}`);
    else {
      const decile = Math.floor(ratio * 10);
      if (decile !== lastDecile || final) stream.write(`${text}\n`);
      lastDecile = final ? 10 : decile;
    }
  };
  return {
    tick(n = 1) {
      done += n;
      render();
    },
    finish() {
      if (stream.isTTY) render(true);
      else if (lastDecile !== 10) render(true);
    },
  };
}
