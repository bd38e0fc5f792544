import { hash, timingSafeEqual } from 'node:crypto';
import Joi from 'joi';
import { PLAN_LIMITS, PLANS } from './plans.ts';
import type { Limits, Plan } from './types.ts';

/** One entry of fixtures/api-keys.json. */
export interface ApiKeyRecord {
  key: string;
  plan: Plan;
  limits?: Limits;
}

/** What a request authenticated with a key knows about it. The raw key is never kept here. */
export interface ApiKey {
  /** A short hash of the key: safe to log and to use in limiter keys. */
  keyId: string;
  plan: Plan;
  limits: Limits;
}

const limitsSchema = Joi.object({
  perMinute: Joi.number().integer().min(1).required(),
  perDay: Joi.number().integer().min(1).required(),
});

export const apiKeyRecordsSchema = Joi.array()
  .items(
    Joi.object({
      key: Joi.string().min(8).max(256).pattern(/^[\x21-\x7e]+$/, 'visible ASCII').required(),
      plan: Joi.string()
        .valid(...PLANS)
        .required(),
      limits: limitsSchema.when('plan', { is: 'enterprise', then: Joi.required() }),
    }),
  )
  .unique('key')
  .min(1);

/** SHA-256 of a secret: equal-length digests that timingSafeEqual can compare. One-shot, the cheapest form. */
export const digest = (value: string): Buffer => hash('sha256', value, 'buffer');

/** The set of known API keys, looked up in constant time. */
export class KeyRing {
  readonly #entries: Array<{ digest: Buffer; apiKey: ApiKey; record: ApiKeyRecord }>;

  constructor(records: readonly ApiKeyRecord[]) {
    const { error, value } = apiKeyRecordsSchema.validate(records);
    if (error) throw new Error(`Invalid API key list: ${error.message}`);
    this.#entries = (value as ApiKeyRecord[]).map((record) => {
      const hash = digest(record.key);
      const limits = record.limits ?? PLAN_LIMITS[record.plan as Exclude<Plan, 'enterprise'>];
      return { digest: hash, record, apiKey: { keyId: hash.toString('hex').slice(0, 16), plan: record.plan, limits } };
    });
  }

  /**
   * Compares the token's digest with every key's digest, without stopping at the first match, so the
   * time taken says nothing about how close a guess came or which key matched.
   */
  lookup(token: string): ApiKey | undefined {
    const candidate = digest(token);
    let found: ApiKey | undefined;
    for (const entry of this.#entries) {
      if (timingSafeEqual(candidate, entry.digest)) found = entry.apiKey;
    }
    return found;
  }

  /** The keys and their plans, for the start-up banner. */
  records(): readonly ApiKeyRecord[] {
    return this.#entries.map((e) => e.record);
  }
}
