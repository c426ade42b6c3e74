import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config-error';
import { MIN_SECRET_BYTES, optionalSecretFromEnv, PLATFORM_SECRETS, secretFromEnv, type PlatformSecret } from './production-secrets';
import { refusedInProduction, strongSecret } from './production-secrets.test-helpers';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const NAMES = Object.keys(PLATFORM_SECRETS) as PlatformSecret[];
const ruleOf = (name: PlatformSecret): { devValue: string; devFallback: boolean; optional?: boolean; identifier?: boolean } => PLATFORM_SECRETS[name];
const get = (name: PlatformSecret, env: NodeJS.ProcessEnv, production: boolean) =>
  name === 'DB_SERVICE_PASSWORD' ? optionalSecretFromEnv(env, name, production) : secretFromEnv(env, name, production);

describe.each(NAMES)('%s', (name) => {
  const rule = ruleOf(name);

  it.each(refusedInProduction(rule.devValue, rule))('is refused in production: %s', (_, value) => {
    expect(() => get(name, { [name]: value }, true)).toThrow(ConfigError);
    expect(() => get(name, { [name]: value }, true)).toThrow(name);
  });

  it(`is taken in production when ${rule.identifier ? 'not the dev one' : `${MIN_SECRET_BYTES} bytes or more`}; dev and test ${rule.devFallback ? 'fall back to the dev value' : 'leave it unset'}`, () => {
    const value = strongSecret();
    expect(get(name, { [name]: value }, true)).toBe(value);
    expect(get(name, { [name]: '' }, false)).toBe(rule.devFallback ? rule.devValue : undefined);
    expect(get(name, { [name]: 'a-short-test-value' }, false)).toBe('a-short-test-value');
  });
});

describe('the published dev values', () => {
  /** Values a file gives NAME: `NAME=value` lines (commented out too) and compose's `${NAME:-value}`. */
  function published(text: string, name: string): string[] {
    const lines = [...text.matchAll(new RegExp(`^#? ?${name}=(.*)$`, 'gm'))].map((m) => m[1].trim());
    const defaults = [...text.matchAll(new RegExp(`\\$\\{${name}:-([^}]*)\\}`, 'g'))].map((m) => m[1]);
    return [...lines, ...defaults].filter(Boolean);
  }

  it.each(['.env.example', 'docker-compose.yml', 'deploy/overlays/dev/dev-secrets.env'])('in %s are the ones production refuses', (file) => {
    const text = read(file);
    for (const name of NAMES) for (const value of published(text, name)) expect({ name, value }).toEqual({ name, value: ruleOf(name).devValue });
  });
});

describe('docs/operations.md, "Secrets"', () => {
  const section = /^## Secrets\n([\s\S]*?)(?=^## )/m.exec(read('docs/operations.md'))?.[1] ?? '';
  const rows = [...section.matchAll(/^\| `([A-Z0-9_]+)` \|(.*)\|\s*$/gm)].map((m) => ({ name: m[1], cells: m[2].split(' | ').map((c) => c.trim()) }));

  it('has one row for each secret production checks, and only those', () => {
    expect(rows.map((r) => r.name).sort()).toEqual([...NAMES].sort());
  });

  it('says for each the services that read it, what it protects and how to make one', () => {
    for (const { name, cells } of rows) expect({ name, cells: cells.length, empty: cells.filter((c) => !c) }).toEqual({ name, cells: 3, empty: [] });
  });
});
