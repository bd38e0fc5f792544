import { hash, timingSafeEqual } from 'node:crypto';
import Joi from 'joi';
import { UsageError } from '../lib/errors.ts';
import type { Plan } from './contract.ts';
import type { PlanLimits } from './types.ts';

/** One entry of fixtures/api-keys.json (or of the file given with --api-keys). */
export interface ApiKeyRecord {
  key: string;
  /** One of the contract's plans (info.x-rate-limits.plans). */
  plan: string;
  /** Required for a plan whose limits are "custom"; overrides the plan's limits otherwise. */
  limits?: PlanLimits;
}

/** What a request authenticated with a key knows about it. The raw key is never kept here. */
export interface ApiKey {
  /** A short hash of the key: safe to log and to use in limiter keys. */
  keyId: string;
  plan: string;
  limits: PlanLimits;
}

const limitsSchema = Joi.object({
  perMinute: Joi.number().integer().min(1).required(),
  // A minute's limit above the day's could never be reached: the day's window would refuse first.
  perDay: Joi.number().integer().min(Joi.ref('perMinute')).required(),
});

function recordsSchema(plans: Readonly<Record<string, Plan>>) {
  const custom = Object.keys(plans).filter((name) => plans[name] === 'custom');
  return Joi.array()
    .items(
      Joi.object({
        key: Joi.string()
          .min(8)
          .max(256)
          .pattern(/^[\x21-\x7e]+$/, 'visible ASCII')
          .required(),
        plan: Joi.string()
          .valid(...Object.keys(plans))
          .required(),
        limits: limitsSchema.when('plan', { is: Joi.valid(...custom), then: Joi.required() }),
      }),
    )
    .unique('key')
    .min(1);
}

/** SHA-256 of a secret: equal-length digests that timingSafeEqual can compare. One-shot, the cheapest form. */
export const digest = (value: string): Buffer => hash('sha256', value, 'buffer');

/** The set of known API keys, looked up in constant time. */
export class KeyRing {
  readonly #entries: Array<{ digest: Buffer; apiKey: ApiKey; record: ApiKeyRecord }>;
  /**
   * Keys already matched, by the token itself: a client sends its key on every request, and its
   * SHA-256 was a twentieth of a request's CPU. Only tokens that are keys get here, so it holds at
   * most one entry per key; every other token still goes through the constant-time comparison.
   */
  readonly #matched = new Map<string, ApiKey>();

  /** Checks the records against the contract's plans: a key on an unknown plan is refused here. */
  constructor(records: readonly ApiKeyRecord[], plans: Readonly<Record<string, Plan>>) {
    const { error, value } = recordsSchema(plans).validate(records);
    if (error) throw new UsageError(`Invalid API key list: ${error.message}`);
    this.#entries = (value as ApiKeyRecord[]).map((record) => {
      const hash = digest(record.key);
      const limits = record.limits ?? (plans[record.plan] as PlanLimits);
      return { digest: hash, record, apiKey: { keyId: hash.toString('hex').slice(0, 16), plan: record.plan, limits } };
    });
  }

  /**
   * Compares the token's digest with every key's digest, without stopping at the first match, so the
   * time taken says nothing about how close a guess came or which key matched.
   */
  lookup(token: string): ApiKey | undefined {
    const known = this.#matched.get(token);
    if (known) return known;
    const candidate = digest(token);
    let found: ApiKey | undefined;
    for (const entry of this.#entries) {
      if (timingSafeEqual(candidate, entry.digest)) found = entry.apiKey;
    }
    if (found) this.#matched.set(token, found);
    return found;
  }

  /** The keys and their plans, for the start-up banner. */
  records(): readonly ApiKeyRecord[] {
    return this.#entries.map((e) => e.record);
  }
}
