/**
 * The headers of a webhook delivery, for `platformctl listen`'s forwarded requests: the dispatcher's
 * own signer (libs/contracts/src/webhook-signing.ts), loaded from the build, so a forwarded request
 * is signed exactly as a delivery is (Svc-Signature and the Standard Webhooks headers).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError, EXIT } from './cli.mjs';

const SIGNER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/libs/contracts/src/webhook-signing.js');

/**
 * @param {{ secrets: readonly string[], timestampSeconds: number, body: Buffer | string, eventId: string, eventType: string, deliveryId: string, attempt: number }} args
 * @returns {Record<string, string>}
 */
export function webhookDeliveryHeaders(args) {
  if (!existsSync(SIGNER)) throw new CliError('the platform is not built: run `npm run build` (or `npm start`) first', EXIT.failure);
  return createRequire(import.meta.url)(SIGNER).webhookDeliveryHeaders(args);
}
