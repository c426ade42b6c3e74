import { createHmac } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from '../signing/webhook-signature';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The signing secret of `platformctl listen` for one API key: `whsec_` and 32 base62 characters,
 * like an endpoint's, derived (HMAC-SHA256 of the server's WEBHOOK_LISTEN_SECRET over the key id)
 * rather than stored, so it is the same on every run with the key (a local app can keep it in its
 * environment) and nothing readable from the database gives it away. A new key gets a new secret.
 * Base62 is a subset of base64, so Standard Webhooks libraries can decode it as they decode ours.
 */
export function listenSigningSecret(serverSecret: string, keyId: string): string {
  const digest = createHmac('sha256', serverSecret).update(`platformctl-listen:v1:${keyId}`).digest();
  // 256 bits in base62 digits; the 32 low digits keep about 190 bits, as a random endpoint secret has.
  let n = BigInt('0x' + digest.toString('hex'));
  let body = '';
  for (let i = 0; i < 32; i++) {
    body = BASE62[Number(n % 62n)] + body;
    n /= 62n;
  }
  return WEBHOOK_SECRET_PREFIX + body;
}
