// The pictures the guides show: a correct limiter and a flawed one, drawn by timeline-svg.js from
// recorded header sequences played through the window rules, and a capacity search drawn by
// capacity-svg.js. Their tests render the same ones in Chromium and look at them; `npm run
// generate` writes them beside the guides, so a change to the renderer or the rules that changes
// a picture shows in review.
import { CORRECT, T0, W1, no, ok } from './recorded.ts';
import { readSnapshot, type RecordedResponse } from '../snapshot.js';
import { capacitySvg, type Capacity } from '../capacity-svg.js';
import { timelinePoint, timelineSvg, type Timeline } from '../timeline-svg.js';
import { createWindowRules } from '../../../judge/rules/window-rules.js';

/** Plays responses of one key through the window rules, one request at a time, into a timeline. */
export function timelineOf(key: string, responses: readonly RecordedResponse[], title?: string): Timeline {
  const rules = createWindowRules();
  const points = responses.map((r) => {
    const s = readSnapshot(r);
    return timelinePoint(s, rules.observe([s]));
  });
  return { key, points, ...(title ? { title } : {}) };
}

/** Saturates a window of 3, is refused, and comes back after each Retry-After: nothing broken. */
export const CORRECT_LIMITER = timelineOf(
  'test-fre…',
  CORRECT,
  'A correct limiter (Limit 3): three windows, each refused after 3, re-admitted after Retry-After',
);

/**
 * Admits a fourth request with Remaining stuck at 0, serves a retry sent before Retry-After, then
 * announces a ten-minute ban that it does not enforce.
 */
export const FLAWED_LIMITER = timelineOf(
  'test-fre…',
  [ok(1, 2, W1), ok(4, 1, W1), ok(7, 0, W1), ok(10, 0, W1), no(13, W1, '47'), ok(16, 0, W1), no(19, W1, '41'), no(22, T0 + 142, '120'), ok(80, 2, T0 + 140)],
  'A flawed limiter (Limit 3): over-admits, serves before Retry-After, does not enforce its ban',
);

/** A capacity search whose knee lies between 400/s (held) and 500/s (broke). */
export const CAPACITY: Capacity = {
  rows: [
    { name: 'step-1', rate: 100, achieved: 100, p95: 4.1, p99: 7.9, ok: true },
    { name: 'step-2', rate: 200, achieved: 199.6, p95: 5.3, p99: 9.8, ok: true },
    { name: 'step-3', rate: 300, achieved: 299.1, p95: 7.2, p99: 14.5, ok: true },
    { name: 'step-4', rate: 400, achieved: 397.8, p95: 12.6, p99: 31.2, ok: true },
    { name: 'step-5', rate: 500, achieved: 431.4, p95: 88.3, p99: 240.7, ok: false, why: 'p99 240.7 ms, achieved 431.4/s of 500/s' },
    { name: 'step-6', rate: 600, achieved: 440.2, p95: 190.5, p99: 520.3, ok: false, why: 'p95 190.5 ms, p99 520.3 ms' },
  ],
  held: { rate: 400 },
  broke: { rate: 500 },
  bound: 'server',
};

/** The picture each guide shows, by file. */
export const PICTURES: ReadonlyArray<{ file: string; svg: () => string }> = [
  { file: 'spec/rules/timeline-correct-limiter.svg', svg: () => timelineSvg(CORRECT_LIMITER) },
  { file: 'conformance/timeline-flawed-limiter.svg', svg: () => timelineSvg(FLAWED_LIMITER) },
  { file: 'spec/rules/capacity-example.svg', svg: () => capacitySvg(CAPACITY) },
];
