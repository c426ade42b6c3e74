/**
 * The local SMTP sink as a process of its own (started detached by tools/infra/mail-sink.mjs):
 *   node tools/infra/mail-sink-server.mjs <dir> <smtpPort> <httpPort>
 */
import mailSink from '../../libs/testing/src/mail-sink.js';

const [dir, smtpPort, httpPort] = process.argv.slice(2);
const sink = await mailSink.startMailSink({ dir, smtpPort: Number(smtpPort), httpPort: Number(httpPort) });
console.log(`mail sink: SMTP on 127.0.0.1:${sink.smtpPort}, list on http://127.0.0.1:${sink.httpPort}/messages`);
const stop = () => sink.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
