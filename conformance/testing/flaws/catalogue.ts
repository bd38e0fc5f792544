// Deliberately broken implementations: the reference server behind a proxy that breaks exactly one
// behaviour. Each names the check that must catch it; flaws.test.ts runs the kit against every one.
// Whether a flaw shows only with --strict, --rate-limit-key or --ban-check follows from that check.
import { BEHAVIOUR_FLAWS } from './behaviour.ts';
import { CONCURRENCY_FLAWS } from './concurrency.ts';
import type { Flaw } from './flaw.ts';
import { INPUT_FLAWS } from './input.ts';
import { RATE_LIMIT_FLAWS } from './rate-limit.ts';
import { STORED_FLAWS } from './stored.ts';
import { VARIATION_FLAWS } from './variations.ts';

export { RETRY_AFTER_AS_DATE } from './rate-limit.ts';

export const FLAWS: readonly Flaw[] = [...BEHAVIOUR_FLAWS, ...STORED_FLAWS, ...INPUT_FLAWS, ...RATE_LIMIT_FLAWS, ...VARIATION_FLAWS, ...CONCURRENCY_FLAWS];
