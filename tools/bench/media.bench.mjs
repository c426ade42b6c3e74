/**
 * POST /media, sustained: requests per second and p50/p99 for creating an upload (gateway, Kafka
 * request/reply, the media decision with its D14 count under a per-app lock, append, projection,
 * outbox, presigning the PUT). D14 allows 100 uploads per app per hour, so requests rotate over
 * many apps. Usage: npm run bench:media [-- --apps 150 --seconds 15 --connections 50]
 */
import { parseArgs } from 'node:util';
import { inParallel, measure, seedApp, withBenchStack } from './bench-stack.mjs';

const { values } = parseArgs({
  options: { apps: { type: 'string', default: '150' }, seconds: { type: 'string', default: '15' }, connections: { type: 'string', default: '50' } },
});

await withBenchStack(async ({ publicUrl, admin }) => {
  const keys = await inParallel(
    Array.from({ length: Number(values.apps) }, (_, i) => i),
    8,
    async (i) => (await seedApp(admin, `Media${i}`)).key,
  );
  const body = JSON.stringify({ fileName: 'photo.jpg', mimeType: 'image/jpeg', size: 245_760 });
  let n = 0;
  await measure(
    'POST /media',
    {
      url: `${publicUrl}/media`,
      method: 'POST',
      connections: Number(values.connections),
      duration: Number(values.seconds),
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            headers: { authorization: `Bearer ${keys[n++ % keys.length]}`, 'content-type': 'application/json' },
            body,
          }),
        },
      ],
    },
    { apps: keys.length, uploadsAllowed: keys.length * 100 },
  );
});
