import type { Limits, Plan } from './types.ts';

export const PLANS: readonly Plan[] = ['free', 'pro', 'business', 'enterprise'];

/** The specification's table "Request rate limits by plan"; enterprise limits are per key ("custom"). */
export const PLAN_LIMITS: Readonly<Record<Exclude<Plan, 'enterprise'>, Limits>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 },
};
