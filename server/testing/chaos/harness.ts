// The chaos harness: the real server (server/cli.ts) as a child process on the file store, creates
// driven over HTTP, a real fault (a full or read-only disk, a second process, kill -9), a restart,
// and an account of what survived. A scenario returns one Row (`npm run chaos` turns the Tally of a
// PostgreSQL or --workers round into one too: rowOf); nothing here decides pass or fail.
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectOutput, spawnChild, stopChild, waitForOutput, type OutputWatch } from '../../../lib/processes.ts';
import { ROOT } from '../process.ts';

export { KEY } from './tally.ts';
import { isErrorBody, KEY, type Checked } from './tally.ts';
import { bodies } from './leaks.ts';
import { sourceArgs } from '../../../lib/testing/run-source.ts';
import { START_BOUND_MS } from '../../../lib/testing/eventually.ts';

/** One scenario's account, a line of the table. */
export interface Row {
  scenario: string;
  /** Creates answered 201. */
  acknowledged: number;
  /** Acknowledged pets missing (or changed) after the restart. */
  lost: number;
  /** Pets stored twice (one name under two ids, or one id twice in the list). */
  duplicated: number;
  /** Ids that came back for another pet: acknowledged or seen by a reader, then held by someone else. */
  reusedIds: number;
  /** Pets a reader was shown that are gone after the restart. */
  seenThenGone: number;
  /** 503s with Retry-After and an Error body. */
  refused: number;
  /** 5xx answers without an Error body, or a 503 without Retry-After. */
  bare5xx: number;
  /** Requests that neither answered nor failed within their bound (only the Tally scenarios bound them). */
  hung: number;
  /** How the processes ended, in order (e.g. "TERM→1"). */
  exits: string[];
  /** What a scenario checked on the way that the columns do not say (/healthz, messages). */
  checks: Record<string, boolean>;
}

export function newRow(scenario: string): Row {
  return { scenario, acknowledged: 0, lost: 0, duplicated: 0, reusedIds: 0, seenThenGone: 0, refused: 0, bare5xx: 0, hung: 0, exits: [], checks: {} };
}

/** A PostgreSQL or --workers round (a Tally and its checks) as a line of the same table. */
export function rowOf({ tally: t, checks }: Checked): Row {
  const { scenario, acknowledged, lost, duplicated, reusedIds, refused, bare5xx, hung } = t;
  return { scenario, acknowledged, lost, duplicated, reusedIds, seenThenGone: 0, refused, bare5xx, hung, exits: [`server exited ${t.exits}×`], checks };
}

export interface Server {
  child: ChildProcess;
  baseUrl: string;
  output: OutputWatch;
  exited: Promise<number | null>;
}

export interface Launch {
  child: ChildProcess;
  output: OutputWatch;
  exited: Promise<number | null>;
  /** The API's base URL once the banner is out; null if the process ended first. */
  ready: Promise<string | null>;
}

/**
 * Where a folder's permission bits must bind, the server runs as root without CAP_DAC_OVERRIDE, the
 * one capability by which root ignores them. It keeps CAP_DAC_READ_SEARCH, so it still reads a
 * checkout in a private directory, which another user (nobody) could not.
 */
export const BOUND_BY_PERMISSIONS = ['setpriv', '--bounding-set', '-dac_override', '--'] as const;

/** Starts the server on the file store `dbFile`, bound by permission bits when `bound` (root only). */
export function launch(dbFile: string, bound = false): Launch {
  const node = [process.execPath, ...sourceArgs('server/cli.ts'), '--db-file', dbFile, '--port', '0', '--quiet', '--no-rate-limit'];
  if (bound && spawnSync(BOUND_BY_PERMISSIONS[0], ['--version']).error) {
    throw new Error(`a server bound by permission bits runs under ${BOUND_BY_PERMISSIONS[0]} (util-linux), which is not installed`);
  }
  const [command, ...args] = bound ? [...BOUND_BY_PERMISSIONS, ...node] : node;
  const child = spawnChild(command!, args, {
    cwd: ROOT,
    env: { ...process.env, npm_command: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
  const output = collectOutput(child);
  const ready = waitForOutput(child, output, /listening on (http:\/\/\S+\/v1)/, START_BOUND_MS, 'the server').then(
    (match) => match[1]!,
    () => null,
  );
  return { child, output, exited, ready };
}

export async function start(dbFile: string, bound = false): Promise<Server> {
  const launched = launch(dbFile, bound);
  const baseUrl = await launched.ready;
  if (!baseUrl) throw new Error(`the server did not start:\n${launched.output.text().slice(-2000)}`);
  return { ...launched, baseUrl };
}

/** Stops `server` with `signal` and returns its exit code (128 when a signal ended it). */
export async function stop(server: { child: ChildProcess; exited: Promise<number | null> }, signal: NodeJS.Signals): Promise<number | null> {
  await stopChild(server.child, signal, 15_000);
  return server.exited;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

export async function call(baseUrl: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const url = path.startsWith('http') ? path : `${baseUrl.replace(/\/v1$/, '')}${path}`;
  const response = await fetch(url, {
    ...init,
    headers: { authorization: KEY, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  bodies.see(url, response.status, body);
  return { status: response.status, headers: response.headers, body };
}

/** What a run of creates was told: the pets acknowledged, by id. */
export class Ledger {
  readonly acknowledged = new Map<number, string>();
  /** Pets a reader was shown, by id. */
  readonly seen = new Map<number, string>();
  /** Acknowledged pets whose id was later acknowledged again for another pet. */
  readonly #shadowed: Array<[number, string]> = [];
  #serial = 0;

  constructor(
    readonly row: Row,
    readonly prefix: string,
  ) {}

  /** One create; returns its status (0 when the connection failed: the process died). */
  async create(baseUrl: string): Promise<number> {
    const name = `${this.prefix}-${this.#serial++}`;
    let answer: Answer;
    try {
      answer = await call(baseUrl, '/v1/pets', { method: 'POST', body: JSON.stringify({ name, categoryId: 1 }) });
    } catch {
      return 0;
    }
    if (answer.status === 201) {
      const pet = answer.body as { id: number; name: string };
      const earlier = this.acknowledged.get(pet.id);
      if (earlier !== undefined) {
        this.row.reusedIds += 1;
        this.#shadowed.push([pet.id, earlier]);
      }
      this.acknowledged.set(pet.id, name);
      this.row.acknowledged += 1;
    } else if (answer.status >= 500) {
      const good = isErrorBody(answer.body, answer.status) && (answer.status !== 503 || answer.headers.has('retry-after'));
      if (!good) this.row.bare5xx += 1;
      else if (answer.status === 503) this.row.refused += 1;
    }
    return answer.status;
  }

  /** Compares what the restarted server holds with what was acknowledged and seen. */
  async audit(baseUrl: string): Promise<void> {
    const pets = await listAll(baseUrl);
    const byId = new Map<number, string>();
    const ids = new Map<string, number>();
    for (const pet of pets) {
      if (byId.has(pet.id)) this.row.duplicated += 1;
      byId.set(pet.id, pet.name);
      if (pet.name.startsWith(`${this.prefix}-`)) {
        if (ids.has(pet.name)) this.row.duplicated += 1;
        ids.set(pet.name, pet.id);
      }
    }
    for (const [id, name] of this.acknowledged) {
      const now = byId.get(id);
      if (now !== name) this.row.lost += 1;
      if (now !== undefined && now !== name) this.row.reusedIds += 1;
    }
    for (const [id, name] of this.#shadowed) if (byId.get(id) !== name) this.row.lost += 1;
    for (const [id, name] of this.seen) {
      const now = byId.get(id);
      if (now !== name) this.row.seenThenGone += 1;
      if (now !== undefined && now !== name && !this.acknowledged.has(id)) this.row.reusedIds += 1;
    }
    // The next id must be past every id anyone was ever shown.
    const highest = Math.max(0, ...this.acknowledged.keys(), ...this.seen.keys());
    const next = await call(baseUrl, '/v1/pets', { method: 'POST', body: JSON.stringify({ name: `${this.prefix}-after`, categoryId: 1 }) });
    this.row.checks['a create after the restart succeeds'] = next.status === 201;
    if (next.status === 201 && (next.body as { id: number }).id <= highest) this.row.reusedIds += 1;
  }
}

export async function listAll(baseUrl: string): Promise<Array<{ id: number; name: string }>> {
  const pets: Array<{ id: number; name: string }> = [];
  let path: string | undefined = '/v1/pets?limit=100';
  while (path) {
    const answer = await call(baseUrl, path);
    if (answer.status !== 200) throw new Error(`listing after the restart answered ${answer.status}`);
    pets.push(...(answer.body as Array<{ id: number; name: string }>));
    path = /<([^>]+)>;\s*rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];
  }
  return pets;
}

/** Runs `work` with up to `concurrency` creates in flight until `until()` says stop. */
export async function createWhile(ledger: Ledger, baseUrl: string, concurrency: number, until: (status: number) => boolean): Promise<void> {
  let done = false;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!done) {
        const status = await ledger.create(baseUrl);
        if (until(status)) done = true;
      }
    }),
  );
}

/** A folder of its own, on a tmpfs of `size` when asked (root only); `cleanup` unmounts it, also after a failure. */
export function workFolder(size?: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-'));
  if (size) execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0777`, 'tmpfs', dir]);
  const data = join(dir, 'data');
  mkdirSync(data);
  chmodSync(data, 0o777);
  return {
    dir: data,
    cleanup: () => {
      if (size) {
        try {
          execFileSync('umount', ['-l', dir]);
        } catch {
          // not mounted
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Fills the file system of `dir` but for `leaveBytes`, with a file `free()` removes. */
export function fill(dir: string, leaveBytes: number): { free: () => void } {
  const stats = statfsSync(dir);
  const available = Number(stats.bavail) * Number(stats.bsize);
  const path = join(dir, '..', 'filler');
  writeFileSync(path, Buffer.alloc(Math.max(0, available - leaveBytes)));
  return { free: () => rmSync(path, { force: true }) };
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}
