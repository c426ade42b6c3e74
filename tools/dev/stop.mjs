/** `npm stop`: stops the apps of a running `npm start` (Kafka and S3Proxy keep running; `npm run infra:stop`). `--tag T` for a stack started with one. */
import { parseArgs } from 'node:util';
import { stopRecordedStack } from './recorded-stack.mjs';

const { values } = parseArgs({ options: { tag: { type: 'string', default: 'dev' } } });
const outcome = await stopRecordedStack(values.tag);
if (outcome === 'stopped') console.log(`stopped the ${values.tag} stack`);
else if (outcome === 'stale') console.log(`removed a stale ${values.tag} pid file (its supervisor was gone) and stopped any of its apps still running`);
else console.log(`no ${values.tag} stack was running`);
