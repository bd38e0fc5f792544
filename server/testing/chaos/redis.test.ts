// "Redis restarted empty under load": two instances share a redis-server of the test's own, killed
// under load and started again without its data; the pro key's admitted count stays within the bound
// of the fail-open rule (instances × limit in a window). Scenario: redis-scenarios.ts.
import { existsSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serviceForTests } from '../services.ts';
import { redisRestartedEmpty } from './redis-scenarios.ts';

const binary = await serviceForTests(
  'chaos/redis.test.ts',
  'redis-server',
  async () => ((process.env.PATH ?? '').split(':').some((dir) => existsSync(`${dir}/redis-server`)) ? null : 'not on PATH'),
  'install it (apt-get install redis-server)',
);
const t = suite('Redis restarted empty under load');
const it = binary.register(t);

it('the counts each instance kept alone rebuild the shared ones: at most 2 × 300 admitted for the pro key', async () => {
  const round = await redisRestartedEmpty();
  process.stdout.write(
    `redis-empty: admitted ${round.admitted} (before ${round.phases.before}, Redis away ${round.phases.away}, after ${round.phases.after}) of a bound of ${round.bound}; ${round.sent} requests\n`,
  );
  assert.ok(round.phases.away > 0, 'the instances served while Redis was away (fail open)');
  assert.ok(round.admitted <= round.bound, `${round.admitted} admitted, above the bound of ${round.bound}`);
  for (const [name, ok] of Object.entries(round.checks)) assert.ok(ok, name);
});

t.run();
