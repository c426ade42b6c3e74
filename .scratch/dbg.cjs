require('../tools/build/register-paths.cjs');
const { rebuildProjections } = require('../dist/libs/event-store/src/projection-rebuild.js');
const { messagingProjectionRebuild: spec } = require('../dist/apps/messaging/src/messages/message.rebuild.js');
const pg = require('pg');
(async () => {
  const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/rebuild_scratch' });
  await c.connect();
  const wrapped = spec;
  console.log(await rebuildProjections(c, wrapped, {}));
  await c.end();
})();
