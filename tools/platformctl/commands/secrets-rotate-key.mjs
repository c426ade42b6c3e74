import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, confirm, EXIT, out } from '../lib/cli.mjs';
import { withDatabase } from '../lib/clients.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The key ring and the dispatcher's own resealing, from the build, so the command seals exactly as the service does. */
function loadCompiled() {
  const credentials = path.join(ROOT, 'dist/apps/webhook-dispatcher/src/endpoints/endpoint-credentials.js');
  if (!existsSync(credentials)) throw new CliError(`${credentials} is missing: run npm run build first`);
  const require = createRequire(import.meta.url);
  const { SecretKeyRing } = require(path.join(ROOT, 'dist/libs/service-kit/src/secret-key-ring.js'));
  const { resealCredentials } = require(credentials);
  return { SecretKeyRing, resealCredentials };
}

/** knex-style `?` placeholders (the service's) as pg's `$n`. */
function pgPlaceholders(sql) {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * Re-encrypts every stored webhook signing secret and verify token under SECRETS_ACTIVE_KEY_ID
 * (docs/operations.md, key rotation). Values under another key listed in SECRETS_KEYS are opened and
 * sealed again; values already under the active key are left alone, so it can run again safely.
 * One transaction: a failure (a value under a key no longer listed) changes nothing.
 */
export default {
  name: ['secrets', 'rotate-key'],
  summary: 'Re-encrypt every stored webhook secret and verify token under the active key (SECRETS_ACTIVE_KEY_ID).',
  description:
    'Reads SECRETS_KEYS (kid:base64key,…) and SECRETS_ACTIVE_KEY_ID from the environment, as the services do; both must list every key still in use.\n' +
    'Run it after every replica runs with the new active key, before removing the old key from SECRETS_KEYS.\n' +
    'Needs the build (dist/, npm run build).',
  options: {
    'dry-run': { type: 'boolean', description: 'count the values per key id, change nothing' },
    yes: { type: 'boolean', short: 'y', description: 'apply without asking' },
    json: { type: 'boolean', description: 'print the summary as JSON' },
  },
  examples: ['SECRETS_KEYS=k1:…,k2:… SECRETS_ACTIVE_KEY_ID=k2 platformctl secrets rotate-key --yes'],
  async run({ values, config }) {
    const { SecretKeyRing, resealCredentials } = loadCompiled();
    let ring;
    try {
      ring = SecretKeyRing.fromEnv(process.env);
    } catch (error) {
      throw new CliError(error.message, EXIT.usage);
    }
    return withDatabase(config, async (db) => {
      const counts = await db.query(
        `select kid, count(*)::int as values from (
           select split_part(v, '.', 2) as kid from webhook_dispatcher.endpoint_credentials,
             unnest(array[verify_token, secret, previous_secret]) as v
           where v is not null and v like 'v1.%'
           union all
           select '(plaintext)' from webhook_dispatcher.endpoint_credentials,
             unnest(array[verify_token, secret, previous_secret]) as v
           where v is not null and v not like 'v1.%'
         ) k group by kid order by kid`,
      );
      const before = Object.fromEntries(counts.rows.map((r) => [r.kid, r.values]));
      const toReseal = counts.rows.filter((r) => r.kid !== ring.activeKeyId).reduce((n, r) => n + r.values, 0);
      if (values['dry-run']) {
        out(
          values.json
            ? JSON.stringify({ activeKeyId: ring.activeKeyId, valuesByKeyId: before, toReseal })
            : `active key ${ring.activeKeyId}; values by key id ${JSON.stringify(before)}; would reseal ${toReseal}`,
        );
        return EXIT.ok;
      }
      if (toReseal > 0 && !(await confirm(values, `Re-encrypt ${toReseal} value(s) under key ${ring.activeKeyId}?`))) return EXIT.refused;
      await db.query('begin');
      let result;
      try {
        result = await resealCredentials(async (sql, params) => (await db.query(pgPlaceholders(sql), params)).rows, ring);
        await db.query('commit');
      } catch (error) {
        await db.query('rollback').catch(() => undefined);
        throw new CliError(`nothing changed: ${error.message}`);
      }
      const summary = { activeKeyId: ring.activeKeyId, valuesByKeyIdBefore: before, endpoints: result.scanned, endpointsResealed: result.resealed };
      out(
        values.json
          ? JSON.stringify(summary)
          : `active key ${ring.activeKeyId}: ${result.resealed} of ${result.scanned} endpoint(s) re-encrypted (values by key id before: ${JSON.stringify(before)})`,
      );
      return EXIT.ok;
    });
  },
};
