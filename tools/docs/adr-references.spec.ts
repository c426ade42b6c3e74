/**
 * Every reference to a decision record resolves (docs/adr/README.md): a path or link to a record
 * names a file that exists, "ADR NNNN" names a record that exists, a record's link text names the
 * record it links to, and a link into docs/performance-history.md lands on one of its headings.
 * A record folded into another is gone, so a reference to it must name the record that holds its
 * decision now (its `History:` line says which).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
// Dot-directories hold tools' caches and data (.git, .data, .nx), not the repository's text.
const SKIPPED_DIRECTORIES = new Set(['node_modules', 'dist', 'coverage']);
const TEXT_FILE = /\.(ts|js|mjs|cjs|md|json|ya?ml|sh)$|^Dockerfile$|^\.env/;

function textFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRECTORIES.has(entry.name) || entry.name.startsWith('.') ? [] : textFiles(full);
    return entry.isFile() && TEXT_FILE.test(entry.name) ? [full] : [];
  });
}

const RECORDS = new Map(
  readdirSync(path.join(ROOT, 'docs', 'adr'))
    .filter((name) => /^\d{4}-[a-z0-9-]+\.md$/.test(name))
    .map((name) => [name.slice(0, 4), name] as const),
);

/** The anchor GitHub gives a heading. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

const HISTORY_ANCHORS = new Set(
  [...readFileSync(path.join(ROOT, 'docs', 'performance-history.md'), 'utf8').matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1])),
);

/** What a text says about records that does not resolve, as `file:line: reference`. */
function danglingReferences(file: string, text = readFileSync(file, 'utf8')): string[] {
  const inRecords = path.dirname(file) === path.join(ROOT, 'docs', 'adr');
  const found: string[] = [];
  const report = (index: number, reference: string) => found.push(`${path.relative(ROOT, file)}:${text.slice(0, index).split('\n').length}: ${reference}`);

  for (const m of text.matchAll(/(?:docs\/)?adr\/(\d{4})(-[a-z0-9-]+\.md)?/g)) {
    const record = RECORDS.get(m[1]);
    if (!record || (m[2] && record !== `${m[1]}${m[2]}`)) report(m.index ?? 0, m[0]);
  }
  for (const m of text.matchAll(/\bADRs?[ -](\d{4}(?:(?:,? and |, | or )\d{4})*)/g)) {
    for (const number of m[1].match(/\d{4}/g) ?? []) if (!RECORDS.has(number)) report(m.index ?? 0, m[0]);
  }
  if (inRecords) {
    for (const m of text.matchAll(/\[([^\]]*)\]\((\d{4})(-[a-z0-9-]+\.md)(#[^)]*)?\)/g)) {
      const numberInText = /^\d{4}$/.test(m[1]) ? m[1] : undefined;
      if (RECORDS.get(m[2]) !== `${m[2]}${m[3]}` || (numberInText && numberInText !== m[2])) report(m.index ?? 0, m[0]);
    }
  }
  for (const m of text.matchAll(/performance-history\.md#([a-z0-9-]+)/g)) {
    if (!HISTORY_ANCHORS.has(m[1])) report(m.index ?? 0, m[0]);
  }
  return found;
}

describe('references to the decision records', () => {
  it('name records that exist, and headings of the performance history that exist', () => {
    // This file's own examples below are meant not to resolve.
    const files = textFiles(ROOT).filter((file) => file !== __filename);
    expect(files.flatMap((file) => danglingReferences(file))).toEqual([]);
  });

  it('catch a reference to a record or a heading that does not exist', () => {
    const [number, name] = [...RECORDS][0];
    const record = path.join(ROOT, 'docs', 'adr', name);
    const text = [
      `ADR ${number}, docs/adr/${name} and [${number}](${name}) resolve.`,
      `ADRs ${number} and 9999, docs/adr/9999-gone.md and performance-history.md#no-such-heading do not.`,
      `[9999](${name}) names another record than it links to; so does docs/adr/${number}-renamed.md.`,
    ].join('\n');
    expect(danglingReferences(record, text)).toEqual([
      `docs/adr/${name}:2: docs/adr/9999-gone.md`,
      `docs/adr/${name}:3: docs/adr/${number}-renamed.md`,
      `docs/adr/${name}:2: ADRs ${number} and 9999`,
      `docs/adr/${name}:3: [9999](${name})`,
      `docs/adr/${name}:2: performance-history.md#no-such-heading`,
    ]);
  });
});
