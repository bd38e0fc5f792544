// Every 5xx body and every /healthz body a chaos scenario receives, searched for what an answer must
// never say about the machine: an address (IPv4, IPv6, host:port), a user name (postgres, nobody, the
// OS user), or a path (/tmp/, /work/, /root, /home, /var/, the data folders, the checkout). Each body
// is searched as it arrives and only the leaks are kept (at most MAX_KEPT), so a long run stays small.
import { tmpdir, userInfo } from 'node:os';
import { ROOT } from '../process.ts';

export interface Leak {
  url: string;
  status: number;
  /** What was found: the pattern's source or the string. */
  found: string;
  body: string;
}

const MAX_KEPT = 20;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const SHAPES: readonly RegExp[] = [
  /\b\d{1,3}(?:\.\d{1,3}){3}\b/,
  /::[0-9a-f]|\[[0-9a-f:]+\]/i,
  /(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}/i,
  /\b(?:localhost|[a-z0-9-]+(?:\.[a-z0-9-]+)+):\d{2,5}\b/i,
  ...['postgres', 'nobody', userInfo().username].map((user) => new RegExp(`\\b${escape(user)}\\b`)),
  ...['/tmp/', '/work/', '/root', '/home', '/var/', tmpdir(), ROOT.replace(/\/$/, '')].map((path) => new RegExp(escape(path))),
];

/** The first thing in `text` an answer must not say, or undefined. */
export function leakIn(text: string): string | undefined {
  return SHAPES.find((shape) => shape.test(text))?.source;
}

export class BodyWatch {
  /** Bodies searched. */
  checked = 0;
  /** Of them, 5xx bodies: the ones that can carry a failure's own words (a /healthz 200 cannot). */
  failures = 0;
  /** Bodies that named something they must not (the first MAX_KEPT). */
  readonly leaks: Leak[] = [];
  leaked = 0;

  /** Searches `body` when it is a 5xx's or /healthz's. */
  see(url: string, status: number, body: unknown): void {
    if (status < 500 && new URL(url, 'http://x').pathname !== '/healthz') return;
    this.checked += 1;
    if (status >= 500) this.failures += 1;
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const found = leakIn(text);
    if (found === undefined) return;
    this.leaked += 1;
    if (this.leaks.length < MAX_KEPT) this.leaks.push({ url, status, found, body: text });
  }
}

/** The one watch every chaos request reports to (harness.ts `call`, tally.ts `request`). */
export const bodies = new BodyWatch();

/**
 * Fails when any body seen so far leaked, or when no 5xx body was seen: then the search proved
 * nothing, since only a failure's body carries its words (`failureOptional` for scenarios that do not
 * always cause one; they still need some body searched).
 */
export function assertNoLeaks({ watch = bodies, failureOptional = false }: { watch?: BodyWatch; failureOptional?: boolean } = {}): void {
  process.stdout.write(`5xx and /healthz bodies searched for addresses, users and paths: ${watch.checked} (${watch.failures} 5xx), leaking: ${watch.leaked}\n`);
  if (watch.checked === 0) throw new Error('no 5xx or /healthz body was seen: the scenarios did not run, or the watch is not fed');
  if (watch.failures === 0 && !failureOptional)
    throw new Error(`no 5xx body was seen (${watch.checked} /healthz 200s only): the scenarios caused no failure, or the watch is not fed`);
  if (watch.leaked > 0)
    throw new Error(
      `${watch.leaked} of ${watch.checked} bodies leaked:\n${watch.leaks.map((l) => `${l.status} ${l.url}: ${l.found} in ${l.body}`).join('\n')}`,
    );
}
