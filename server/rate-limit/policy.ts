// What is limited, and for how long: the windows a partition is counted in and the ban that
// follows repeated refusals. Pure data, shared by the counters and the header formatting.
import type { PlanLimits } from '../../spec/contract-types.ts';
import type { ErrorCode } from '../errors.ts';

/** One fixed window: at most `limit` requests per `windowMs`, starting at the first admitted request. */
export interface WindowSpec {
  /** Policy name, as it appears in RateLimit-Policy and in the 429 error code. */
  readonly name: string;
  /** The error code of a 429 this window refuses. */
  readonly code: ErrorCode;
  readonly limit: number;
  readonly windowMs: number;
}

/** `threshold` refused requests within `periodMs` ban the partition for `durationMs`. */
export interface BanSpec {
  readonly threshold: number;
  readonly periodMs: number;
  readonly durationMs: number;
}

/** A key partition is counted per API key; an ip partition collects requests without a valid key. */
export type PartitionKind = 'key' | 'ip';

export interface Partition {
  readonly kind: PartitionKind;
  /** Counters' key: never a raw API key (the auth layer hands us a hash) and never unbounded input. */
  readonly id: string;
  readonly windows: readonly WindowSpec[];
  readonly ban: BanSpec | null;
}

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export function keyWindows(limits: PlanLimits): WindowSpec[] {
  return [
    { name: 'minute', code: 'rate_limited_minute', limit: limits.perMinute, windowMs: MINUTE_MS },
    { name: 'day', code: 'rate_limited_day', limit: limits.perDay, windowMs: DAY_MS },
  ];
}

export function ipWindows(perMinute: number): WindowSpec[] {
  return [{ name: 'ip-minute', code: 'rate_limited_ip', limit: perMinute, windowMs: MINUTE_MS }];
}

/**
 * The RateLimit item (draft-ietf-httpapi-ratelimit-headers) a ban or an address block is reported
 * as, beside the windows: a policy the server does not advertise in RateLimit-Policy, since while
 * it lasts it allows nothing, whatever the windows have left.
 */
export const BAN_ITEM: Readonly<Record<PartitionKind, string>> = { key: 'ban', ip: 'ip-block' };

/** A ban with threshold 0 never starts; callers pass `null` to the counters for it. */
export function banOrNull(ban: BanSpec): BanSpec | null {
  return ban.threshold > 0 && ban.durationMs > 0 ? ban : null;
}

export function keyPartition(keyId: string, limits: PlanLimits, ban: BanSpec | null): Partition {
  return { kind: 'key', id: `key:${keyId}`, windows: keyWindows(limits), ban };
}

export function ipPartition(address: string, perMinute: number, ban: BanSpec | null): Partition {
  return { kind: 'ip', id: `ip:${address}`, windows: ipWindows(perMinute), ban };
}

/**
 * Admin API attempts from one address, counted apart from its API traffic: the same allowance and
 * block as requests without a key, so an address sending bad keys never locks out its own harness.
 */
export function adminPartition(address: string, perMinute: number, ban: BanSpec | null): Partition {
  return { kind: 'ip', id: `admin:${address}`, windows: ipWindows(perMinute), ban };
}

/**
 * The longest span the limiter adds to now in anything it reports (X-RateLimit-Reset, Retry-After,
 * RateLimit's reset, a ban's end): its longest window or its longest ban, whichever is longer.
 */
export function longestSpanMs(bans: { key: { durationSeconds: number }; ip: { durationSeconds: number } }): number {
  const windows = [...keyWindows({ perMinute: 1, perDay: 1 }), ...ipWindows(1)].map((w) => w.windowMs);
  return Math.max(...windows, bans.key.durationSeconds * 1000, bans.ip.durationSeconds * 1000);
}
