/** `npm stop`: stops the apps of a running `npm start` (Kafka and S3Proxy keep running; `npm run infra:stop`). `--tag T` for a stack started with one. */
import { parseArgs } from 'node:util';
import { stopRecordedStack } from './stack.mjs';

const { values } = parseArgs({ options: { tag: { type: 'string', default: 'dev' } } });
console.log((await stopRecordedStack(values.tag)) ? `stopped the ${values.tag} stack` : `no ${values.tag} stack was running`);
