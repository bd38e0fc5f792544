// The ban rule of ban.ts as cases, which ban.test.ts runs through the memory counters and consume.lua,
// for a key and an address alike. Times are ms since the case began. A moment just before an end is at
// least 5 s before it: in Redis real time runs on with the case, and must not carry it past the end.
import type { Outcome } from './counters.ts';
import { MINUTE_MS, type BanSpec } from './policy.ts';

export interface BanStep {
  readonly at: number;
  /** 1 counts the request; 0 is a probe, which asks for room for one more and counts nothing. */
  readonly cost: 0 | 1;
  readonly outcome: Outcome;
  /** When `banned`: when the ban ends. */
  readonly banEndsAt?: number;
}

export interface BanCase {
  readonly name: string;
  /** What the partition's one-minute window admits. */
  readonly perMinute: number;
  readonly ban: BanSpec;
  readonly steps: readonly BanStep[];
}

/** 3 refusals within a minute ban for 5 minutes. */
const BAN: BanSpec = { threshold: 3, periodMs: MINUTE_MS, durationMs: 5 * MINUTE_MS };

/** `n` requests at `at`, each expected to get `outcome`. */
const times = (n: number, at: number, outcome: Exclude<Outcome, 'banned'>, cost: 0 | 1 = 1): BanStep[] =>
  Array.from({ length: n }, () => ({ at, cost, outcome }));
const banned = (at: number, banEndsAt: number, cost: 0 | 1 = 1): BanStep => ({ at, cost, outcome: 'banned', banEndsAt });

export const BAN_CASES: readonly BanCase[] = [
  {
    name: 'under the threshold: refusals short of it ban nothing, and the next window admits',
    perMinute: 2,
    ban: BAN,
    steps: [...times(2, 0, 'admitted'), ...times(2, 1_000, 'refused'), ...times(2, 60_000, 'admitted')],
  },
  {
    name: 'exactly at the threshold: the refusal that reaches it is banned, for the duration from then',
    perMinute: 2,
    ban: BAN,
    steps: [...times(2, 0, 'admitted'), ...times(2, 1_000, 'refused'), banned(1_000, 301_000)],
  },
  {
    name: 'a threshold of 1: the first refusal bans',
    perMinute: 1,
    ban: { ...BAN, threshold: 1 },
    steps: [...times(1, 0, 'admitted'), banned(0, 300_000)],
  },
  {
    name: 'refusals within one period count together across windows',
    perMinute: 2,
    ban: BAN,
    steps: [...times(2, 0, 'admitted'), ...times(2, 50_000, 'refused'), ...times(2, 60_000, 'admitted'), banned(60_000, 360_000)],
  },
  {
    name: 'refusals spread beyond the period never ban, however many',
    perMinute: 1,
    ban: BAN,
    steps: [0, 60_000, 120_000].flatMap((at) => [...times(1, at, 'admitted'), ...times(2, at, 'refused')]),
  },
  {
    name: 'the period is fixed from its first refusal, not sliding',
    perMinute: 1,
    ban: BAN,
    steps: [
      ...times(1, 0, 'admitted'),
      ...times(1, 0, 'refused'),
      ...times(1, 55_000, 'refused'),
      // The period ended at 60 s: three refusals within 6 s, yet a count of 1, then 2.
      ...times(1, 60_000, 'admitted'),
      ...times(2, 60_000, 'refused'),
      banned(61_000, 361_000),
    ],
  },
  {
    name: 'admitted requests in between neither reset nor extend the count',
    perMinute: 1,
    ban: { ...BAN, periodMs: 5 * MINUTE_MS },
    steps: [
      ...times(1, 0, 'admitted'),
      ...times(1, 0, 'refused'),
      ...times(1, 60_000, 'admitted'),
      ...times(1, 60_000, 'refused'),
      ...times(1, 120_000, 'admitted'),
      banned(120_000, 420_000),
    ],
  },
  {
    name: 'during the ban: banned with the time left, probes too; nothing counts as a refusal and the end stays',
    perMinute: 2,
    ban: BAN,
    steps: [
      ...times(2, 0, 'admitted'),
      ...times(2, 0, 'refused'),
      banned(0, 300_000),
      banned(120_000, 300_000),
      banned(120_000, 300_000),
      banned(120_000, 300_000, 0),
      banned(295_000, 300_000),
      banned(295_000, 300_000),
      // Had the requests above counted as refusals, these two would ban again.
      ...times(2, 300_000, 'admitted'),
      ...times(2, 300_000, 'refused'),
    ],
  },
  {
    name: 'the ban lifts at its end exactly',
    perMinute: 2,
    ban: BAN,
    steps: [...times(2, 0, 'admitted'), ...times(2, 1_000, 'refused'), banned(1_000, 301_000), banned(296_000, 301_000), ...times(1, 301_000, 'admitted')],
  },
  {
    name: 'after the ban, a fresh window admits in full and the refusal count starts over',
    perMinute: 2,
    ban: BAN,
    steps: [
      ...times(2, 0, 'admitted'),
      ...times(2, 1_000, 'refused'),
      banned(1_000, 301_000),
      ...times(2, 301_000, 'admitted'),
      ...times(2, 301_000, 'refused'),
      banned(301_000, 601_000),
    ],
  },
  {
    name: 'a ban shorter than the window: the window still full refuses again, counting from 1',
    perMinute: 2,
    ban: { threshold: 2, periodMs: MINUTE_MS, durationMs: 10_000 },
    steps: [...times(2, 0, 'admitted'), ...times(1, 1_000, 'refused'), banned(1_000, 11_000), ...times(1, 11_000, 'refused'), banned(12_000, 22_000)],
  },
  {
    name: 'a probe refused counts towards the ban; a probe admitted counts nothing',
    perMinute: 2,
    ban: BAN,
    steps: [...times(1, 0, 'admitted', 0), ...times(2, 0, 'admitted'), ...times(2, 0, 'refused', 0), banned(0, 300_000, 0), banned(0, 300_000)],
  },
];
