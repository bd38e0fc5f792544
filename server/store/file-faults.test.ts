// The file store against real faults: a full disk (a 256 KiB tmpfs, root only; under CI these
// run), a lock held by a live process or left by a dead one.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../clock.ts';
import type { Pet } from '../types.ts';
import { StorageUnavailableError } from './durable-json-file.ts';
import { readFileStore } from './database-file.ts';
import { LowPetStore } from './low-pet-store.ts';
import { StoreLockedError } from './store-lock.ts';

const seed: Pet[] = [{ id: 1, name: 'A', categoryId: 1, status: 'available' }];
const root = process.getuid?.() === 0;
if (!root) process.stdout.write('SKIP: not root, so no tmpfs can be mounted to fill (run as root, as CI does)\n');
if (!root && process.env.CI === 'true') throw new Error('server/store/file-faults.test.ts mounts a tmpfs: under CI it must run as root');

/** A 256 KiB tmpfs for `work`, unmounted afterwards whatever happens. */
async function onSmallDisk(work: (dir: string, fill: () => () => void) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir]);
  const fill = () => {
    const stats = statfsSync(dir);
    writeFileSync(join(dir, 'filler'), Buffer.alloc(Number(stats.bavail) * Number(stats.bsize)));
    return () => rmSync(join(dir, 'filler'));
  };
  try {
    await work(dir, fill);
  } finally {
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  }
}

const create = (store: LowPetStore, name: string) => store.create({ name, categoryId: 1, status: 'available' });

const full = suite('a full disk');
const check = root ? full : full.skip;

check('a create the disk refuses is a StorageUnavailableError, shows nothing and skips its id; failure() says why until the disk takes writes', async () => {
  await onSmallDisk(async (dir, fill) => {
    const clock = new ManualClock();
    const store = await LowPetStore.open({ type: 'file', path: join(dir, 'db.json') }, seed, { clock });
    const acknowledged = await create(store, 'before');
    // Fill the disk, then use up the journal's last page.
    const free = fill();
    let refusal: unknown;
    for (let i = 0; i < 200 && !refusal; i++) await create(store, `x${i}-${'y'.repeat(60)}`).catch((error) => (refusal = error));
    assert.instance(refusal, StorageUnavailableError);
    assert.is((refusal as StorageUnavailableError).errno, 'ENOSPC');
    const count = await store.count();
    const durable = readFileStore(join(dir, 'db.json'));
    assert.is(count, durable.length, 'what is visible is exactly what is durable');
    assert.match((await store.failure()) ?? '', /^storage: ENOSPC writing the journal/);
    free();
    assert.ok(await store.failure(), 'checked again only once a second of the clock has passed');
    clock.advance(1000);
    assert.is(await store.failure(), undefined, 'the probe found the disk writable again');
    const after = await create(store, 'after');
    assert.ok(after.id > durable.at(-1)!.id + 1, 'the refused id was skipped, not given to the next pet');
    assert.equal(await store.get(acknowledged.id), acknowledged);
    await store.close();
  });
});

check('a close whose snapshot the disk refuses rejects and leaves the journal whole; the next start replays it', async () => {
  await onSmallDisk(async (dir, fill) => {
    const path = join(dir, 'db.json');
    const store = await LowPetStore.open({ type: 'file', path }, seed);
    const created: Pet[] = [];
    for (let i = 0; i < 20; i++) created.push(await create(store, `p${i}`));
    const journal = readFileSync(`${path}.journal`, 'utf8');
    const free = fill();
    try {
      await store.close();
      assert.unreachable('close() should have failed');
    } catch (error) {
      assert.instance(error, StorageUnavailableError);
      assert.match((error as Error).message, /ENOSPC writing the snapshot/);
    }
    assert.is(readFileSync(`${path}.journal`, 'utf8'), journal, 'the journal is untouched');
    assert.not.ok(existsSync(join(dir, '.db.json.tmp')), 'no half-written snapshot left holding space');
    assert.not.ok(existsSync(`${path}.lock`), 'the lock was released');
    free();
    const again = await LowPetStore.open({ type: 'file', path }, seed);
    for (const pet of created) assert.equal(await again.get(pet.id), pet);
    await again.close();
  });
});

check('a torn journal tail the full disk cannot keep aside is still cut, and the start goes on, logging its first bytes', async () => {
  await onSmallDisk(async (dir) => {
    const path = join(dir, 'db.json');
    await (await LowPetStore.open({ type: 'file', path }, seed)).close();
    const tail = Buffer.alloc(64 * 1024, 'g');
    appendFileSync(`${path}.journal`, tail);
    // Room for the lock, none for a copy of the tail.
    const stats = statfsSync(dir);
    writeFileSync(join(dir, 'filler'), Buffer.alloc(Number(stats.bavail) * Number(stats.bsize) - 16 * 1024));
    const logged: string[] = [];
    const store = await LowPetStore.open({ type: 'file', path }, seed, { log: (level, message) => void logged.push(`${level}: ${message}`) });
    assert.is(logged.length, 1, logged.join('\n'));
    assert.match(
      logged[0]!,
      /^error: The journal \S+ ended in 65536 bytes without a newline \(left by a crash\) that do not parse as a pet\. They were cut from the journal, but could not be kept in \S+\.torn-\S+ \(ENOSPC: [^)]*\); they began "g{80}"\.\.\.\.$/,
    );
    assert.equal(
      readdirSync(dir).filter((f) => f.includes('.torn-')),
      [],
      'no partial copy left holding space',
    );
    assert.is(statSync(`${path}.journal`).size, 0, 'the tail is cut');
    assert.equal((await store.list({ limit: 10 })).pets, seed);
    assert.is((await create(store, 'after')).id, 2, 'the space the tail held takes creates again');
    await store.close();
  });
});

check(
  "a cut-short line's id is not given again although the start's snapshot and the stop's are refused: the tail stays in the journal until one is durable",
  async () => {
    await onSmallDisk(async (dir) => {
      const path = join(dir, 'db.json');
      await (await LowPetStore.open({ type: 'file', path }, seed)).close();
      // Pet 2's line, and pet 3's cut short, all in one page: cutting the tail frees no space.
      appendFileSync(`${path}.journal`, `${JSON.stringify({ id: 2, name: 'B', categoryId: 1, status: 'sold' })}\n{"id":3,"name":"Ha`);
      // Room for the lock's page and the side file's, none for a snapshot.
      const stats = statfsSync(dir);
      writeFileSync(join(dir, 'filler'), Buffer.alloc(Number(stats.bavail) * Number(stats.bsize) - 8192));
      const logged: string[] = [];
      const store = await LowPetStore.open({ type: 'file', path }, seed, { log: (level, message) => void logged.push(`${level}: ${message}`) });
      assert.match(logged[0]!, /kept in \S+\.torn-\S+\. Id 3 will not be given again\.$/);
      assert.match(logged[1]!, /^error: .*ENOSPC writing the snapshot/, logged.join('\n'));
      assert.match((await store.failure()) ?? '', /ENOSPC writing the snapshot/);
      assert.instance(await store.close().catch((error: unknown) => error), StorageUnavailableError);

      rmSync(join(dir, 'filler'));
      const again = await LowPetStore.open({ type: 'file', path }, seed);
      assert.equal(
        (await again.list({ limit: 10 })).pets.map((p) => p.id),
        [1, 2],
      );
      assert.is((await create(again, 'after')).id, 4, 'id 3 was not given again');
      await again.close();
    });
  },
);

check('a whole last pet whose newline the full disk refuses at start is kept, and gets its newline before the next line', async () => {
  await onSmallDisk(async (dir) => {
    const path = join(dir, 'db.json');
    await (await LowPetStore.open({ type: 'file', path }, seed)).close();
    // A journal of exactly two pages, so that the newline needs a third.
    const last = (name: string) => `${JSON.stringify({ id: 3, name, categoryId: 1, status: 'sold' })}`;
    const first = `${JSON.stringify({ id: 2, name: 'B', categoryId: 1, status: 'sold' })}\n`;
    const padding = 8192 - first.length - last('').length;
    appendFileSync(`${path}.journal`, first + last('n'.repeat(padding)));
    assert.is(statSync(`${path}.journal`).size, 8192);
    // Room for the lock's page only.
    const stats = statfsSync(dir);
    writeFileSync(join(dir, 'filler'), Buffer.alloc(Number(stats.bavail) * Number(stats.bsize) - 4096));
    const logged: string[] = [];
    const store = await LowPetStore.open({ type: 'file', path }, seed, { log: (level, message) => void logged.push(`${level}: ${message}`) });
    assert.match(
      logged[0]!,
      /^error: The journal \S+ ended in pet 3's whole line without its newline \(\d+ bytes, left by a crash\); the pet was kept and the newline will be added before the next line \(the disk refused it now: ENOSPC/,
    );
    assert.equal(
      (await store.list({ limit: 10 })).pets.map((p) => p.id),
      [1, 2, 3],
    );
    rmSync(join(dir, 'filler'));
    const after = await create(store, 'after');
    assert.is(after.id, 4);
    assert.equal(
      readFileStore(path).map((p) => p.id),
      [1, 2, 3, 4],
      'pet 3 and pet 4 on lines of their own',
    );
    await store.close();
    const again = await LowPetStore.open({ type: 'file', path }, seed);
    assert.is(await again.count(), 4);
    await again.close();
  });
});

full.run();

const lock = suite('one process per file');
const tempPath = () => join(mkdtempSync(join(tmpdir(), 'lock-')), 'db.json');

lock('a second open of the same file is refused, naming the holder; after close it opens', async () => {
  const path = tempPath();
  const first = await LowPetStore.open({ type: 'file', path }, seed);
  try {
    await LowPetStore.open({ type: 'file', path }, seed);
    assert.unreachable('the second open should be refused');
  } catch (error) {
    assert.instance(error, StoreLockedError);
    assert.match((error as Error).message, new RegExp(`in use by process ${process.pid} on ${hostname()} \\(since \\d{4}-`));
    assert.match((error as Error).message, /PostgreSQL/);
  }
  await first.close();
  const second = await LowPetStore.open({ type: 'file', path }, seed);
  await second.close();
});

lock('the stale lock of a dead process is taken over; a lock from another host is not', async () => {
  const path = tempPath();
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  writeFileSync(`${path}.lock`, JSON.stringify({ pid: Number(dead), hostname: hostname(), startedAt: new Date().toISOString(), token: 'dead' }));
  const store = await LowPetStore.open({ type: 'file', path }, seed);
  assert.is(JSON.parse(readFileSync(`${path}.lock`, 'utf8')).pid, process.pid);
  await store.close();
  writeFileSync(`${path}.lock`, JSON.stringify({ pid: Number(dead), hostname: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z', token: 'far' }));
  try {
    await LowPetStore.open({ type: 'file', path }, seed);
    assert.unreachable('a lock from another host must not be taken');
  } catch (error) {
    assert.instance(error, StoreLockedError);
    assert.match((error as Error).message, new RegExp(`process ${dead} on elsewhere`));
  }
});

lock('of two opens racing for a stale lock, exactly one wins', async () => {
  const path = tempPath();
  writeFileSync(`${path}.lock`, JSON.stringify({ pid: 2 ** 22 + 1, hostname: hostname(), startedAt: new Date().toISOString(), token: 'dead' }));
  const results = await Promise.allSettled([LowPetStore.open({ type: 'file', path }, seed), LowPetStore.open({ type: 'file', path }, seed)]);
  const won = results.filter((r): r is PromiseFulfilledResult<LowPetStore> => r.status === 'fulfilled');
  assert.is(won.length, 1);
  assert.instance((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason, StoreLockedError);
  await won[0]!.value.close();
});

lock.run();
