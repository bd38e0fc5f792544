// @ts-check
// What every peer server launched by the benchmark shares: it tells its parent where it listens
// (one IPC message), reads the bytes it must answer with, and stops on SIGTERM. Plain JavaScript,
// like the peers themselves, so that no peer carries tsx's loader in its process either.
import { readFileSync } from 'node:fs';

/**
 * @typedef {{ type: 'ready', origin: string }} ReadyMessage
 * @typedef {{ bodyFile: string, contentType: string, headers?: Record<string, string> }} CannedAnswer
 * @typedef {{ list: CannedAnswer, get: CannedAnswer }} CannedResponses
 */

/**
 * @param {unknown} m
 * @returns {m is ReadyMessage}
 */
export function isReady(m) {
  return (
    typeof m === 'object' && m !== null && /** @type {ReadyMessage} */ (m).type === 'ready' && typeof (/** @type {ReadyMessage} */ (m).origin) === 'string'
  );
}

/**
 * Tells the parent where we listen; a server started by hand (no IPC channel) prints it instead.
 * @param {string} origin e.g. http://127.0.0.1:41234
 */
export function announce(origin) {
  /** @type {ReadyMessage} */
  const message = { type: 'ready', origin };
  if (process.send) process.send(message);
  else process.stderr.write(`listening on ${origin}\n`);
}

/**
 * The reference server's answers to the list and get requests, captured by the parent at the start of the
 * run: body, content type, and the values of its own fields the floor peer sends too (bench/targets.ts).
 * @returns {{ list: { body: Buffer, contentType: string, headers: Record<string, string> }, get: { body: Buffer, contentType: string, headers: Record<string, string> } }}
 */
export function cannedFromEnv() {
  const raw = process.env.BENCH_CANNED;
  if (!raw) throw new Error('BENCH_CANNED must be set');
  /** @type {CannedResponses} */
  const canned = JSON.parse(raw);
  const read = (/** @type {CannedAnswer} */ a) => ({ body: readFileSync(a.bodyFile), contentType: a.contentType, headers: a.headers ?? {} });
  return { list: read(canned.list), get: read(canned.get) };
}

/** @param {() => Promise<void>} stop */
export function onTerminate(stop) {
  const handler = () => {
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}
