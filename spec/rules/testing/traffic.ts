// Real traffic of many clients on one key, recorded for the window rules' tests: `clients` clients
// each send one GET /pets at the same moment (a wave), the server's manual clock moves on, and
// again, until `seconds` have passed. Every answer is kept as the client saw it (status, headers,
// when it left and arrived on the server's clock), in the order it arrived. Waves are spaced so the
// key is offered `overdrive` times its per-minute limit: windows saturate, refuse, reset and are
// crossed, fixed or sliding, whatever the implementation does.
import type { RecordedResponse } from '../snapshot.js';

export interface TrafficOptions {
  baseUrl: string;
  key: string;
  clock: { now(): number; advance(ms: number): void };
  clients: number;
  /** The key's per-minute limit. */
  limit: number;
  /** Simulated seconds to cover. */
  seconds: number;
  overdrive?: number;
}

/** One wave: the answers to requests sent at once, in the order they arrived. */
export type Wave = RecordedResponse[];

export async function recordTraffic(options: TrafficOptions): Promise<Wave[]> {
  const { baseUrl, key, clock, clients, limit, seconds } = options;
  const perSecond = (limit * (options.overdrive ?? 1.5)) / 60;
  const stepMs = Math.max(1, Math.round((clients / perSecond) * 1000));
  const waves: Wave[] = [];
  let seq = 0;
  for (let elapsed = 0; elapsed <= seconds * 1000; elapsed += stepMs) {
    const wave: Wave = [];
    const sentAtMs = clock.now();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        const ref = ++seq;
        const res = await fetch(`${baseUrl}/pets?limit=1`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        const headers: Record<string, string> = {};
        res.headers.forEach((value, name) => (headers[name] = value));
        // The server's clock stands still during a wave; the answers still arrive one after another.
        wave.push({ status: res.status, headers, sentAtMs, receivedAtMs: sentAtMs + (performance.now() - started), ref });
      }),
    );
    waves.push(wave);
    clock.advance(stepMs);
  }
  return waves;
}

/** A deterministic shuffle (mulberry32), so a failing order can be replayed by its seed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
