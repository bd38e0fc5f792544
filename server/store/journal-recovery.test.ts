// Recovery that speaks, on the real server: creates over HTTP, kill -9 mid-flight, the journal damaged
// as a crash or a disk leaves it, a restart. Every acknowledged pet is served (but one cut short, its
// bytes kept aside), no id twice or again, and the start logs what it did. In-process: pet-journal.test.ts.
import { execFileSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stopChild } from '../../lib/processes.ts';
import { startCli, type ServerProcess } from '../testing/process.ts';
import type { Pet } from '../types.ts';

const KEY = { authorization: 'Bearer test-load-key' };
/** Acknowledged creates before the kill: a few hundred, with more in flight on every lane. */
const ACKS_BEFORE_KILL = 300;
const LANES = 16;

async function createPet(baseUrl: string, name: string): Promise<Pet> {
  const res = await fetch(`${baseUrl}/pets`, {
    method: 'POST',
    headers: { ...KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Pet;
}

/** Every pet the server lists, following Link rel="next". */
async function listAll(baseUrl: string): Promise<Pet[]> {
  const pets: Pet[] = [];
  let url: string | undefined = `${baseUrl}/pets?limit=100`;
  for (let page = 0; url && page < 100; page++) {
    const res: Response = await fetch(url, { headers: KEY });
    assert.is(res.status, 200);
    pets.push(...((await res.json()) as Pet[]));
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '');
    url = next ? new URL(next[1]!, baseUrl).href : undefined;
  }
  return pets;
}

/** The `msg` of every JSON log line the server wrote. */
const messages = (server: ServerProcess): string[] =>
  server
    .output()
    .split('\n')
    .flatMap((line) => {
      try {
        return [String((JSON.parse(line) as { msg?: unknown }).msg)];
      } catch {
        return [];
      }
    });

/** A server killed with SIGKILL while creates were in flight: its data folder, and the ids it acknowledged. */
async function crashedStore(): Promise<{ dir: string; acknowledged: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'journal-crash-'));
  const server = await startCli(['--port', '0', '--db-file', join(dir, 'db.json'), '--quiet']);
  const acknowledged: number[] = [];
  let killed = false;
  try {
    await Promise.all(
      Array.from({ length: LANES }, async (_, lane) => {
        for (let i = 0; i < 1000 && !killed; i++) {
          const pet = await createPet(server.baseUrl, `lane ${lane} pet ${i}`).catch(() => undefined);
          if (!pet) return;
          acknowledged.push(pet.id);
          if (acknowledged.length === ACKS_BEFORE_KILL) {
            killed = true;
            server.child.kill('SIGKILL');
          }
        }
      }),
    );
  } finally {
    await stopChild(server.child, 'SIGKILL');
  }
  assert.is(server.child.signalCode, 'SIGKILL');
  return { dir, acknowledged };
}

interface Damage {
  /** Breaks the journal the way a crash or a disk would. */
  damage(journal: string): void;
  /** The start's log line. Group 1, when present, is the id of the pet whose line was cut short. */
  logged: RegExp;
  /** Whether the damaged bytes are cut off into a side file. */
  cut: boolean;
}

const garbage = Buffer.alloc(1024 * 1024);
for (let i = 0; i < garbage.length; i++) garbage[i] = 0x20 + ((i * 7919) % 95);

const damages: Array<[string, Damage]> = [
  [
    'its last byte cut (truncate -s -1): the whole last pet is kept, the newline added',
    {
      damage: (journal) => execFileSync('truncate', ['-s', '-1', journal]),
      logged: /^The journal \S+ ended in pet \d+'s whole line without its newline \(\d+ bytes, left by a crash\); the pet was kept and the newline added\.$/,
      cut: false,
    },
  ],
  [
    'its last line cut short (truncate -s -20): cut off into a side file, its id never given again',
    {
      damage: (journal) => execFileSync('truncate', ['-s', '-20', journal]),
      logged:
        /^The journal \S+ ended in \d+ bytes without a newline \(left by a crash\) that do not parse as a pet: the start of pet (\d+)'s line, cut short\. They were cut from the journal and kept in \S+\.torn-\S+\. Id \d+ will not be given again\.$/,
      cut: true,
    },
  ],
  [
    'a megabyte of garbage without a newline appended: cut off into a side file, whole',
    {
      damage: (journal) => appendFileSync(journal, garbage),
      logged:
        /^The journal \S+ ended in 1048576 bytes without a newline \(left by a crash\) that do not parse as a pet\. They were cut from the journal and kept in \S+\.torn-\S+\.$/,
      cut: true,
    },
  ],
];

const t = suite('file store journal after kill -9');
let crashed: { dir: string; acknowledged: number[] };

t.before(async () => {
  crashed = await crashedStore();
});

t('the crash itself: the server was killed with creates in flight, and the journal holds whole lines', () => {
  assert.ok(crashed.acknowledged.length >= ACKS_BEFORE_KILL, `${crashed.acknowledged.length} acknowledged`);
  assert.is(new Set(crashed.acknowledged).size, crashed.acknowledged.length, 'no id acknowledged twice');
  const journal = readFileSync(join(crashed.dir, 'db.json.journal'), 'utf8');
  assert.ok(journal.endsWith('\n') && journal.split('\n').length > ACKS_BEFORE_KILL, 'the lines are in the journal, not yet folded');
});

for (const [name, { damage, logged, cut }] of damages) {
  t(`a restart after kill -9 and the journal's ${name}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-restart-'));
    for (const file of ['db.json', 'db.json.journal']) copyFileSync(join(crashed.dir, file), join(dir, file));
    const journal = join(dir, 'db.json.journal');
    const whole = readFileSync(journal);
    damage(journal);
    const damaged = readFileSync(journal);

    const server = await startCli(['--port', '0', '--db-file', join(dir, 'db.json'), '--quiet']);
    let served: Pet[];
    let next: Pet;
    try {
      served = await listAll(server.baseUrl);
      next = await createPet(server.baseUrl, 'after the restart');
    } finally {
      await stopChild(server.child, 'SIGTERM');
    }
    assert.is(await server.exited, 0, server.output());

    const said = messages(server).filter((m) => m.startsWith('The journal '));
    assert.is(said.length, 1, server.output());
    const match = logged.exec(said[0]!);
    assert.ok(match, said[0]);
    const tornId = match[1] === undefined ? undefined : Number(match[1]);

    const ids = served.map((p) => p.id);
    assert.is(new Set(ids).size, ids.length, 'no id served twice');
    const lost = crashed.acknowledged.filter((id) => !ids.includes(id));
    assert.equal(
      lost,
      tornId !== undefined && crashed.acknowledged.includes(tornId) ? [tornId] : [],
      'every acknowledged pet is served, but one whose line was cut',
    );
    if (tornId !== undefined) assert.not.ok(ids.includes(tornId), 'the pet whose line was cut short is not served');
    assert.ok(next.id > Math.max(...ids, tornId ?? 0), `the next id (${next.id}) is above every id served or cut`);

    const sideFiles = readdirSync(dir).filter((f) => f.startsWith('db.json.journal.torn-'));
    if (cut) {
      assert.is(sideFiles.length, 1, sideFiles.join(', '));
      const kept = readFileSync(join(dir, sideFiles[0]!));
      const cutAt = damaged.length - kept.length;
      assert.ok(damaged.subarray(cutAt).equals(kept), 'the side file holds exactly the bytes cut off');
      assert.ok(whole.subarray(0, cutAt).toString().endsWith('\n'), 'the journal was cut at a line end');
    } else {
      assert.equal(sideFiles, []);
    }
  });
}

t.run();
