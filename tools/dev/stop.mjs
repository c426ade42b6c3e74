/** `npm stop`: stops the apps of a running `npm start` (Kafka and S3Proxy keep running; `npm run infra:stop`). */
import { stopRecordedStack } from './stack.mjs';

console.log((await stopRecordedStack('dev')) ? 'stopped the dev stack' : 'no dev stack was running');
