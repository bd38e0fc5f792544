// The rate limits, configured as express-rate-limit's README shows: one `rateLimit()` per window,
// keyed by the bearer key, its `limit` a function of the key's plan, its default MemoryStore. What
// the library does not do is ours: the Error body of a 429 (`handler`) and the temporary ban.
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type Options, type RateLimitInfo } from 'express-rate-limit';
import { HEADERS, PLAN_LIMITS } from '../../../spec/rules/contract.js';
import { formatHttpDate } from '../../../spec/rules/fields.js';
import { ApiError, sendError } from './errors.ts';
import type { Plan, ResolvedOptions } from './options.ts';

/** Requests without a valid key, per client address and minute. */
export const ADDRESS_LIMIT_PER_MINUTE = 300;

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** The bearer token of `Authorization`, whatever the key. */
export function bearerOf(req: Request): string | undefined {
  const m = /^Bearer +([^ ]+) *$/i.exec(req.headers.authorization ?? '');
  return m?.[1];
}

/** The plan of the request's key; undefined without a valid one. */
export function planOf(req: Request, options: ResolvedOptions): Plan | undefined {
  const key = bearerOf(req);
  return key === undefined ? undefined : options.keys.get(key);
}

interface Ban {
  until: number;
  limit: number;
}

/** The ban: 429s since the key's last admission, and the bans in force. Reads Date.now, as the library does. */
class Bans {
  #refusals = new Map<string, number>();
  #bans = new Map<string, Ban>();
  readonly #options: ResolvedOptions;

  constructor(options: ResolvedOptions) {
    this.#options = options;
  }

  active(key: string): Ban | undefined {
    const ban = this.#bans.get(key);
    if (ban && ban.until <= Date.now()) this.#bans.delete(key);
    return this.#bans.get(key);
  }

  /** A refusal; the one that reaches banAfter bans the key until its window has ended, at least. */
  refused(key: string, info: RateLimitInfo): void {
    const count = (this.#refusals.get(key) ?? 0) + 1;
    this.#refusals.set(key, count);
    if (count < this.#options.banAfter) return;
    this.#refusals.delete(key);
    const windowEnd = this.#options.bug === 'short-ban' ? 0 : (info.resetTime?.getTime() ?? 0);
    this.#bans.set(key, { until: Math.max(Date.now() + this.#options.banMs, windowEnd), limit: info.limit });
  }

  admitted(key: string): void {
    this.#refusals.delete(key);
  }
}

function refuse(req: Request, res: Response, bans: Bans | undefined, message: string): void {
  const info = (req as Request & { rateLimit?: RateLimitInfo }).rateLimit;
  const key = bearerOf(req);
  if (bans && info && key !== undefined) bans.refused(key, info);
  res.set('Cache-Control', 'no-store');
  sendError(res, new ApiError(429, 'too-many-requests', message));
}

/** Refuses a banned key before the limiters count it, with the headers of the ban. */
function banGuard(bans: Bans, options: ResolvedOptions): RequestHandler {
  return (req, res, next) => {
    const key = bearerOf(req);
    const ban = key !== undefined && options.keys.has(key) ? bans.active(key) : undefined;
    if (!ban) return next();
    const seconds = Math.ceil((ban.until - Date.now()) / 1000);
    res.set({
      Date: formatHttpDate(Date.now()),
      [HEADERS.rateLimitLimit]: String(ban.limit),
      [HEADERS.rateLimitRemaining]: '0',
      [HEADERS.rateLimitReset]: String(Math.ceil(ban.until / 1000)),
      'Retry-After': String(seconds),
      'Cache-Control': 'no-store',
    });
    sendError(res, new ApiError(429, 'key-banned', `This key is banned for ${seconds} s after repeated requests over its limit.`));
  };
}

/** The options both limiters share, as the README writes them. */
function common(options: ResolvedOptions): Partial<Options> {
  return {
    standardHeaders: 'draft-8',
    legacyHeaders: options.bug !== 'no-legacy-headers',
    skipFailedRequests: options.bug === 'skip-failed-requests',
    keyGenerator: (req) => {
      const key = bearerOf(req);
      if (options.bug !== 'per-address' && key !== undefined && options.keys.has(key)) return `key:${key}`;
      return `address:${ipKeyGenerator(req.ip ?? '')}`;
    },
  };
}

function planLimit(options: ResolvedOptions, window: 'perMinute' | 'perDay') {
  const extra = options.bug === 'limit-too-high' ? 1 : 0;
  return (req: Request): number => {
    const plan = planOf(req, options);
    return plan === undefined ? ADDRESS_LIMIT_PER_MINUTE : PLAN_LIMITS[plan][window] + extra;
  };
}

/**
 * The middleware chain in order: the ban, the two limiters, then a note of the admission. Each
 * limiter overwrites the previous one's X-RateLimit-*; by default the minute limiter runs last, so
 * that until the day is spent they describe the minute window.
 */
export function rateLimits(options: ResolvedOptions): RequestHandler[] {
  const bans = new Bans(options);
  const perDay = rateLimit({
    ...common(options),
    windowMs: DAY_MS,
    limit: planLimit(options, 'perDay'),
    identifier: 'day',
    skip: (req) => planOf(req, options) === undefined,
    handler: (req, res) => refuse(req, res, bans, 'The daily request limit of this key is spent.'),
  });
  const perMinute = rateLimit({
    ...common(options),
    windowMs: MINUTE_MS,
    limit: planLimit(options, 'perMinute'),
    identifier: 'minute',
    handler: (req, res) => refuse(req, res, planOf(req, options) ? bans : undefined, 'Too many requests this minute.'),
  });
  const admitted = (req: Request, _res: Response, next: NextFunction) => {
    const key = bearerOf(req);
    if (key !== undefined) bans.admitted(key);
    next();
  };
  const limiters = options.order === 'day-then-minute' ? [perDay, perMinute] : [perMinute, perDay];
  return [banGuard(bans, options), ...limiters, admitted];
}
