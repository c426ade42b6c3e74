/**
 * Jest's sequencer, with shards balanced by time instead of by count: `--shard=i/n` hands the files,
 * longest first, each to the shard with the least time so far, by the seconds a full run took
 * (tools/test/test-durations.json; files not listed count as its `defaultSeconds`). Every shard
 * computes the same split from the same list, so the shards together run each file once. Split by
 * count, as Jest does, one shard of `npm test` got most of the slow files and ran 100 s longer.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const durations = require('./test-durations.json');

const ROOT = path.resolve(__dirname, '../..');

class ShardSequencer extends Sequencer {
  shard(tests, { shardIndex, shardCount }) {
    const timed = tests.map((test) => ({
      test,
      seconds: durations.seconds[path.relative(ROOT, test.path).split(path.sep).join('/')] ?? durations.defaultSeconds,
    }));
    timed.sort((a, b) => b.seconds - a.seconds || (a.test.path < b.test.path ? -1 : 1));
    const loads = Array.from({ length: shardCount }, () => 0);
    const mine = [];
    for (const { test, seconds } of timed) {
      const least = loads.indexOf(Math.min(...loads));
      loads[least] += seconds;
      if (least === shardIndex - 1) mine.push(test);
    }
    return mine;
  }
}

module.exports = ShardSequencer;
