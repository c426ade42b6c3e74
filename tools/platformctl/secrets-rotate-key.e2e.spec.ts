import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DEV_SECRETS_KEYS, SecretKeyRing } from '#platform/service-kit';
import {
  api,
  createTestApp,
  expectStatus,
  queryDatabase,
  registerWebhook,
  requestsTo,
  startWebhookReceiver,
  verifiedSecrets,
  type HttpsReceiver,
} from '#platform/testing';

const CLI = path.resolve(__dirname, 'platformctl.mjs');

function ctl(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH, DATABASE_URL: process.env.DATABASE_URL, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const credentialsOf = async (endpointId: string) =>
  (
    await queryDatabase<Record<string, string | null>>(
      'select verify_token, secret, previous_secret from webhook_dispatcher.endpoint_credentials where endpoint_id = $1',
      [endpointId],
    )
  )[0];

let receiver: HttpsReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver(4);
});
afterAll(async () => {
  await receiver?.close();
});

describe('platformctl secrets rotate-key (e2e)', () => {
  it('re-encrypts every stored value under the active key, seals legacy plaintext, and the stack signs as before once back on its key', async () => {
    const app = await createTestApp();
    const hook = await registerWebhook(app, ['message.status'], { hostIndex: 4 });
    // A row as written before encryption (plaintext), as the migration and the command must seal it.
    const legacyId = `we_legacy${randomBytes(6).toString('hex')}`;
    await queryDatabase(`insert into webhook_dispatcher.endpoint_credentials (endpoint_id, verify_token, secret) values ($1, 'legacy-token', 'whsec_legacy')`, [
      legacyId,
    ]);

    const newKey = randomBytes(32).toString('base64');
    const both = `${DEV_SECRETS_KEYS},k2:${newKey}`;
    const plan = await ctl({ SECRETS_KEYS: both, SECRETS_ACTIVE_KEY_ID: 'k2' }, 'secrets', 'rotate-key', '--dry-run', '--json');
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout).toReseal).toBeGreaterThanOrEqual(3);

    const toNew = await ctl({ SECRETS_KEYS: both, SECRETS_ACTIVE_KEY_ID: 'k2' }, 'secrets', 'rotate-key', '--yes', '--json');
    expect(toNew).toMatchObject({ code: 0 });
    expect(JSON.parse(toNew.stdout).endpointsResealed).toBeGreaterThanOrEqual(2);
    const ring = SecretKeyRing.parse(both, 'k2');
    for (const [id, secret] of [
      [hook.id, hook.secret],
      [legacyId, 'whsec_legacy'],
    ]) {
      const row = await credentialsOf(id);
      expect(SecretKeyRing.keyIdOf(row.secret!)).toBe('k2');
      expect(SecretKeyRing.keyIdOf(row.verify_token!)).toBe('k2');
      expect(ring.open(row.secret!, `webhook_dispatcher.endpoint_credentials:${id}:signing-secret`)).toBe(secret);
    }
    const again = await ctl({ SECRETS_KEYS: both, SECRETS_ACTIVE_KEY_ID: 'k2' }, 'secrets', 'rotate-key', '--yes', '--json');
    expect(JSON.parse(again.stdout).endpointsResealed).toBe(0);

    // Without the key that sealed them, nothing changes and the command fails.
    const missing = await ctl({ SECRETS_KEYS: `k3:${randomBytes(32).toString('base64')}`, SECRETS_ACTIVE_KEY_ID: 'k3' }, 'secrets', 'rotate-key', '--yes');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nothing changed/);
    expect(SecretKeyRing.keyIdOf((await credentialsOf(hook.id)).secret!)).toBe('k2');

    // Back under the stack's own key: deliveries are signed with the secret given at creation.
    const back = await ctl({ SECRETS_KEYS: both, SECRETS_ACTIVE_KEY_ID: 'dev' }, 'secrets', 'rotate-key', '--yes');
    expect(back.code).toBe(0);
    await queryDatabase('delete from webhook_dispatcher.endpoint_credentials where endpoint_id = $1', [legacyId]);
    expectStatus(await api('POST', `/webhooks/${hook.id}/test`, app.sandboxKey), 202);
    await receiver.waitFor(() => requestsTo(receiver, hook.path).length >= 1, 15_000);
    const [delivery] = requestsTo(receiver, hook.path);
    expect(verifiedSecrets(String(delivery.headers['svc-signature']), delivery.rawBody, [hook.secret]).matched).toEqual([hook.secret]);
  });
});
