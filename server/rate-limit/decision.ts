// Turns the counters' answer into what the client is told: which window binds, the header values,
// and for a refusal the error code and message. Pure, so every rounding rule is tested here.
import { LOWER_HEADERS } from '../../spec/rules/contract.js';
import { formatRateLimit, formatRateLimitPolicy } from '../../spec/rules/structured-fields.js';
import type { ErrorCode } from '../errors.ts';
import { BAN_ITEM, type PartitionKind, type WindowSpec } from './policy.ts';
import type { ConsumeResult, WindowUsage } from './counters.ts';

export interface Verdict {
  readonly admitted: boolean;
  /** Response headers, already formatted. */
  readonly headers: Readonly<Record<string, string>>;
  /** Present when refused: the Error body's code and message. */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
}

/** Seconds until `ms` from now, rounded up: waiting that long never lands before the instant. */
export function secondsUntil(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/** Unix epoch seconds of the instant `ms` after `nowMs`, rounded up for the same reason. */
export function epochSecondsAt(nowMs: number, ms: number): number {
  return Math.ceil((nowMs + ms) / 1000);
}

export function remaining(usage: WindowUsage): number {
  return Math.max(0, usage.spec.limit - usage.used);
}

/**
 * The window reported in X-RateLimit-*: when admitted, the one with the fewest requests left
 * (a tie goes to the one that resets last, the more cautious answer); when refused, among the
 * exhausted windows the one that resets last, since nothing is admitted before it does.
 */
export function bindingWindow(result: ConsumeResult, cost: 0 | 1 = 1): WindowUsage {
  const needed = Math.max(cost, 1);
  const exhausted = result.windows.filter((u) => u.used + needed > u.spec.limit);
  const candidates = result.outcome === 'refused' && exhausted.length > 0 ? exhausted : result.windows;
  let best: WindowUsage | undefined;
  for (const usage of candidates) {
    if (!best) best = usage;
    else if (result.outcome === 'refused') {
      if (usage.resetMs > best.resetMs) best = usage;
    } else if (remaining(usage) < remaining(best) || (remaining(usage) === remaining(best) && usage.resetMs > best.resetMs)) {
      best = usage;
    }
  }
  if (!best) throw new Error('a partition has at least one window');
  return best;
}

const policies = new WeakMap<readonly WindowSpec[], string>();

/** `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11): every window of the partition; the same for every request of a partition. */
export function formatPolicy(windows: readonly WindowSpec[]): string {
  let policy = policies.get(windows);
  if (policy === undefined) {
    policy = formatPolicyOnce(windows);
    policies.set(windows, policy);
  }
  return policy;
}

function formatPolicyOnce(windows: readonly WindowSpec[]): string {
  return formatRateLimitPolicy(windows.map((w) => ({ name: w.name, quota: w.limit, window: Math.round(w.windowMs / 1000) })));
}

/**
 * `RateLimit` (same draft): what is left in each window and when it resets. A ban spends no
 * allowance, so during one the windows still say what they have left, after the ban's own item:
 * nothing until it ends (the draft lets Retry-After, which says the same, take precedence).
 */
export function formatState(result: ConsumeResult, kind: PartitionKind = 'key'): string {
  const windows = result.windows.map((u) => ({ name: u.spec.name, remaining: remaining(u), reset: secondsUntil(u.resetMs) }));
  if (result.outcome !== 'banned') return formatRateLimit(windows);
  return formatRateLimit([{ name: BAN_ITEM[kind], remaining: 0, reset: secondsUntil(result.banMs) }, ...windows]);
}

function per(windowMs: number): string {
  if (windowMs === 60_000) return 'per minute';
  if (windowMs === 86_400_000) return 'per day';
  return `per ${Math.round(windowMs / 1000)} seconds`;
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

function refusal(kind: PartitionKind, result: ConsumeResult, binding: WindowUsage, retryAfter: number): { code: ErrorCode; message: string } {
  const wait = `retry after ${plural(retryAfter, 'second')}`;
  if (result.outcome === 'banned') {
    return kind === 'key'
      ? { code: 'key_banned', message: `API key temporarily banned after repeated requests over its rate limit; ${wait}.` }
      : { code: 'ip_blocked', message: `Address temporarily blocked after repeated requests without a valid API key; ${wait}.` };
  }
  if (kind === 'ip') {
    return {
      code: binding.spec.code,
      message: `Limit of ${binding.spec.limit} requests ${per(binding.spec.windowMs)} without a valid API key exceeded for this address; ${wait}.`,
    };
  }
  return { code: binding.spec.code, message: `Rate limit of ${binding.spec.limit} requests ${per(binding.spec.windowMs)} exceeded; ${wait}.` };
}

/**
 * The counters' answer turned into a refusal of the partition's first (shortest) window as it
 * stands: for an injected 429, which must look exactly like a real one and, like one, counts nothing.
 */
export function asRefusal(result: ConsumeResult): ConsumeResult {
  const [first, ...rest] = result.windows;
  if (!first) throw new Error('a partition has at least one window');
  return { outcome: 'refused', banMs: 0, windows: [{ ...first, used: first.spec.limit }, ...rest] };
}

export function verdict(kind: PartitionKind, result: ConsumeResult, nowMs: number, cost: 0 | 1 = 1, specs?: readonly WindowSpec[]): Verdict {
  const binding = bindingWindow(result, cost);
  const headers: Record<string, string> = {
    [LOWER_HEADERS.rateLimitLimit]: String(binding.spec.limit),
    [LOWER_HEADERS.rateLimitPolicy]: formatPolicy(specs ?? result.windows.map((u) => u.spec)),
    [LOWER_HEADERS.rateLimit]: formatState(result, kind),
  };
  if (result.outcome === 'admitted') {
    headers[LOWER_HEADERS.rateLimitRemaining] = String(remaining(binding));
    headers[LOWER_HEADERS.rateLimitReset] = String(epochSecondsAt(nowMs, binding.resetMs));
    return { admitted: true, headers };
  }
  const waitMs = result.outcome === 'banned' ? result.banMs : binding.resetMs;
  const retryAfter = Math.max(1, secondsUntil(waitMs));
  headers[LOWER_HEADERS.rateLimitRemaining] = '0';
  headers[LOWER_HEADERS.rateLimitReset] = String(epochSecondsAt(nowMs, waitMs));
  headers[LOWER_HEADERS.retryAfter] = String(retryAfter);
  headers['cache-control'] = 'no-store';
  return { admitted: false, headers, error: refusal(kind, result, binding, retryAfter) };
}
