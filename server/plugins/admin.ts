// The admin API for test harnesses, under /__admin and off unless the server was given an admin
// token: put the pets back to their seed, forget every rate-limit window and ban, and move the
// server's clock forward so day windows, bans and the sunset can be tested without waiting.
import { timingSafeEqual } from 'node:crypto';
import type { Plugin, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { LAST_INSTANT_MS, type Clock } from '../clock.ts';
import { apiError } from '../errors.ts';
import type { PetStore } from '../store/pet-store.ts';
import type { Pet } from '../types.ts';
import { digest } from '../keys.ts';
import { bearerToken } from './auth.ts';
import { rejectInvalid } from './errors.ts';
import { RATE_LIMIT_PLUGIN } from './rate-limit.ts';

export const ADMIN_PLUGIN = 'admin';
export const ADMIN_PREFIX = '/__admin';
export const ADMIN_STRATEGY = 'admin-token';
const STRATEGY = ADMIN_STRATEGY;
const REALM = 'adoption-store-admin';

export interface AdminPluginOptions {
  /** The bearer token every admin request must carry. */
  token: string;
  clock: Clock;
  store: PetStore;
  /** What a reset puts back. */
  seedPets: readonly Pet[];
  /** The latest instant the clock may be moved to (clock.ts `latestClockMs`). */
  latestClockMs: number;
}

// Strict, as pet bodies are: "1" is not a number of seconds, and neither is 1.5, -1 or 1e400.
const advanceSchema = Joi.object({
  ms: Joi.number().integer().min(1),
  seconds: Joi.number().integer().min(1),
})
  .xor('ms', 'seconds')
  .required()
  .strict();

export const adminPlugin: Plugin<AdminPluginOptions> = {
  name: ADMIN_PLUGIN,
  version: '1.0.0',
  register(server, { token, clock, store, seedPets, latestClockMs }) {
    const expected = digest(token);

    server.auth.scheme(STRATEGY, () => ({
      authenticate(request: Request, h: ResponseToolkit) {
        const given = bearerToken(request.headers.authorization);
        // Digests of equal length, compared in constant time: timing says nothing about the token.
        if (!given || !timingSafeEqual(digest(given), expected)) {
          const challenge = given ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`;
          throw apiError('invalid_admin_token', 'The admin API needs "Authorization: Bearer <admin token>".', { 'WWW-Authenticate': challenge });
        }
        return h.authenticated({ credentials: { admin: true } });
      },
    }));
    server.auth.strategy(STRATEGY, STRATEGY);

    const limiter = () => server.plugins[RATE_LIMIT_PLUGIN]?.counters;
    const clockState = () => {
      const now = clock.now();
      return { now: new Date(now).toISOString(), epochMs: now };
    };
    const resetPets = async () => {
      await store.reset(seedPets);
      return store.count();
    };
    const resetLimits = async () => {
      await limiter()?.reset();
    };

    const route = (method: 'GET' | 'POST', path: string, handler: ServerRoute['handler'], extra: Record<string, unknown> = {}): ServerRoute => ({
      method,
      path: `${ADMIN_PREFIX}${path}`,
      handler,
      // Harness traffic is not counted; failed attempts at the token are, like failed API keys.
      options: { auth: STRATEGY, plugins: { [RATE_LIMIT_PLUGIN]: 'admin' }, ...extra },
    });

    server.route([
      route('POST', '/reset', async () => {
        const pets = await resetPets();
        await resetLimits();
        return { pets, rateLimits: 'reset', clock: clockState() };
      }),
      route('POST', '/pets/reset', async () => ({ pets: await resetPets() })),
      route('POST', '/rate-limits/reset', async (_request, h) => {
        await resetLimits();
        return h.response().code(204);
      }),
      route('GET', '/clock', () => clockState()),
      route(
        'POST',
        '/clock/advance',
        async (request) => {
          const body = request.payload as { ms?: number; seconds?: number };
          const ms = body.ms ?? (body.seconds ?? 0) * 1000;
          if (typeof clock.advance !== 'function') {
            throw apiError('clock_not_movable', 'This server was given a clock that cannot be moved.');
          }
          // Checked before moving: past the latest instant, a reset or a ban's end would fall beyond the last date a header can print.
          if (clock.now() + ms > latestClockMs) {
            const field = body.ms !== undefined ? 'ms' : 'seconds';
            const left = Math.max(0, latestClockMs - clock.now());
            const most = field === 'ms' ? left : Math.floor(left / 1000);
            const spanDays = Math.ceil((LAST_INSTANT_MS - latestClockMs) / 86_400_000);
            throw apiError(
              'invalid_body',
              `"${field}" must be at most ${most}: the clock cannot move past ${new Date(latestClockMs).toISOString()}, ${spanDays} days before the last date the server can print (${new Date(LAST_INSTANT_MS).toISOString()}): room for the longest window or ban after a year of real time. Nothing was changed.`,
            );
          }
          clock.advance(ms);
          // Stores that keep their own time (Redis TTLs) move with the clock.
          await limiter()?.advance(ms);
          return { advancedMs: ms, ...clockState() };
        },
        { validate: { payload: advanceSchema, failAction: rejectInvalid('invalid_body') } },
      ),
    ]);
  },
};
