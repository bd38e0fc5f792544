// The racy builds (`race`), flaws on purpose: alone they behave like the correct build, concurrent
// requests over-admit or share ids. A barrier stands in for the real gap, so every burst races.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { SecondServerOptions } from './index.ts';
import { call, raceBarrier, rate, withServer, type Running } from './test-support.ts';

// ---------------------------------------------------------------------------------------------
const racy = suite('race: the read-then-write gaps of a store read and written a few ms apart (test builds, flaws on purpose)');

/** Opens `n` keep-alive connections first, so that the `n` requests of a burst reach the server together. */
async function warm(r: Running, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, () => call(r, '/pets?limit=1', { key: r.server.keys.business })));
}

const LIMITER_BUILDS: Array<[options: SecondServerOptions, racy: boolean]> = [
  [{}, false],
  [{ window: 'sliding' }, false],
  [{ race: { limiter: true } }, true],
  [{ race: { limiter: true }, window: 'sliding' }, true],
];

racy('race.limiter: alone it counts like the correct build; 20 at once with Remaining 5 repeat Remaining and are over-admitted', async () => {
  for (const [options, isRacy] of LIMITER_BUILDS) {
    const barrier = raceBarrier();
    await withServer({ ...options, race: { ...options.race, gap: barrier.gap }, banAfter: 100 }, async (r) => {
      const context = JSON.stringify(options);
      const key = r.server.keys.free;
      await warm(r, 20);
      for (let i = 1; i <= 55; i++) assert.is(rate(await call(r, '/pets', { key })).remaining, 60 - i, `${context}: sequential ${i}`);
      barrier.arm(20);
      const burst = await Promise.all(Array.from({ length: 20 }, () => call(r, '/pets', { key })));
      const admitted = burst.filter((reply) => reply.status === 200).map((reply) => rate(reply).remaining);
      assert.ok(
        burst.every((reply) => reply.status === 200 || reply.status === 429),
        context,
      );
      if (isRacy) {
        assert.ok(admitted.length > 5, `${context}: ${admitted.length} admitted, no more than the announced Remaining 5`);
        assert.ok(new Set(admitted).size < admitted.length, `${context}: Remaining never repeated: ${admitted.join(', ')}`);
      } else {
        assert.equal(
          admitted.sort((a, b) => a - b),
          [0, 1, 2, 3, 4],
          context,
        );
      }
    });
  }
});

racy('race.ids: alone creates get increasing ids; overlapping creates share an id and the last one wins', async () => {
  const builds: Array<[options: SecondServerOptions, racy: boolean]> = [
    [{}, false],
    [{ race: { ids: true } }, true],
  ];
  for (const [options, isRacy] of builds) {
    const barrier = raceBarrier();
    await withServer({ ...options, race: { ...options.race, gap: barrier.gap }, empty: true }, async (r) => {
      const context = JSON.stringify(options);
      await warm(r, 5);
      for (const id of [1, 2]) assert.is((await call(r, '/pets', { json: { name: `Alone ${id}`, categoryId: 1 } })).body.id, id, context);
      const names = ['Ash', 'Birch', 'Cedar', 'Damson', 'Elder'];
      barrier.arm(names.length);
      const created = await Promise.all(names.map((name) => call(r, '/pets', { json: { name, categoryId: 1 } })));
      assert.ok(
        created.every((reply) => reply.status === 201),
        context,
      );
      const createdIds = created.map((reply) => reply.body.id as number);
      const listed = (await call(r, '/pets?limit=100')).body as Array<{ id: number; name: string }>;
      const listedNames = new Set(listed.map((p) => p.name));
      if (!isRacy) {
        assert.equal(
          [...createdIds].sort((a, b) => a - b),
          [3, 4, 5, 6, 7],
          context,
        );
        assert.ok(
          names.every((name) => listedNames.has(name)),
          context,
        );
        return;
      }
      const shared = createdIds.find((id, i) => createdIds.indexOf(id) !== i);
      assert.ok(shared !== undefined, `${context}: no id was given twice: ${createdIds.join(', ')}`);
      const lost = names.filter((name) => !listedNames.has(name));
      assert.ok(lost.length > 0, `${context}: every name is still listed`);
      const sharers = names.filter((_, i) => createdIds[i] === shared);
      const fetched = await call(r, `/pets/${shared}`);
      assert.ok(sharers.includes(fetched.body.name), context);
      assert.is(sharers.filter((name) => listedNames.has(name)).length, 1, `${context}: one of ${sharers.join(', ')} is stored under ${shared}`);
      assert.is(new Set(listed.map((p) => p.id)).size, listed.length, `${context}: the list holds each id once`);
    });
  }
});

racy.run();
