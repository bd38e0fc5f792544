// What the forwarding thread keeps of one exchange while it passes: references to what Node already
// made (the request's raw headers, the answer's, the captured chunks of each body) and a few numbers.
// The Exchange the judge reads is built from it where the judge runs (exchange-record.ts): in the
// worker, so that the forwarding thread builds no header objects, decodes no body and learns no key.
import type { Exchange } from '../judge/index.ts';
import { Cutter, type Verdict } from './cutter.ts';
import type { UnderWayEntry } from './under-way.ts';

/** The first bytes of a body as they stream past, kept by reference (a chunk past the cap is cut in a copy). */
export class ChunkCapture {
  readonly chunks: Buffer[] = [];
  kept = 0;
  total = 0;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.#limit - this.kept;
    if (room <= 0) return;
    // A copy of the part kept, so a big chunk's memory is not held for a few bytes of it.
    const part = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  /** The kept bytes as one buffer (the chunk itself when there is one). */
  bytes(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.kept);
  }
}

/** One exchange under way, and what cuts it short (it is its own Cutter and its own entry on the list under way: one object per request). */
export class RawExchange extends Cutter implements UnderWayEntry {
  prevArrived: UnderWayEntry | undefined = undefined;
  nextArrived: UnderWayEntry | undefined = undefined;
  dueAtMs = 0;
  over = false;
  /** Its turn in the judge's order. */
  readonly seq: number;
  readonly sentAt: number;
  receivedAt: number;
  readonly method: string;
  /** What follows the target's origin: its path prefix, then the client's path and query. */
  readonly path: string;
  /** The request's raw headers as Node read them (names as sent, repeats kept). */
  readonly requestRaw: readonly string[];
  /** The request body as captured while it streams; `requestEnded` once it has all come (or its stream closed). */
  requestBody: ChunkCapture | undefined;
  requestEnded = false;
  /** The answer, once it was answered (0 when none was). */
  status = 0;
  responseRaw: readonly string[] | undefined;
  responseBody: ChunkCapture | undefined;
  /** The answer ended before its body did (cut), whatever the capture kept. */
  responseCut = false;
  error: string | undefined;
  tlsError = false;
  /** Whether the target may have decided it (its limiter counted it), whatever became of the exchange. */
  reachedTarget = false;
  /** How it is to be judged, once it is over. */
  verdict: Verdict | undefined;
  /** Its key, read here only when something in this thread needs it (--faults' last window). */
  key: string | undefined;
  /** The exchange as an inline judge (or the HAR) reads it, built in this thread only for them. */
  recorded: { exchange: Exchange; key: string | undefined } | undefined;

  constructor(seq: number, sentAt: number, method: string, path: string, requestRaw: readonly string[]) {
    super();
    this.seq = seq;
    this.sentAt = sentAt;
    this.receivedAt = sentAt;
    this.method = method;
    this.path = path;
    this.requestRaw = requestRaw;
  }

  /** The request body as the judge reads it: what was captured, once it had ended by the time the exchange finished. */
  get requestKept(): ChunkCapture | undefined {
    return this.requestEnded && this.requestBody && this.requestBody.total > 0 ? this.requestBody : undefined;
  }

  /** What this exchange weighs on its way to the worker: its captured bodies, and a little for the rest. */
  get weight(): number {
    return 1_024 + (this.requestKept?.kept ?? 0) + (this.responseRaw ? (this.responseBody?.kept ?? 0) : 0);
  }
}

/** The value of the first header of that name (lower case) in raw headers, as Node keeps it for a field it keeps once. */
export function firstRaw(raw: readonly string[], lower: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (name.length === lower.length && name.toLowerCase() === lower) return raw[i + 1];
  }
  return undefined;
}

/** How the proxy's thread hands its exchanges to the judge, wherever it runs: in arrival order, then in turn as they finish. */
export interface RawFeed {
  arrivedRaw(raw: RawExchange): void;
  finishedRaw(raw: RawExchange, verdict: Verdict): void;
}
