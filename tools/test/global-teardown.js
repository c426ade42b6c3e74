const path = require('node:path');

module.exports = async () => {
  const stack = await import(path.join(path.resolve(__dirname, '../..'), 'tools/dev/stack.mjs'));
  await stack.stopChildren(Object.values(globalThis.__TEST_STACK__ ?? {}));
};
