// Deliberately broken implementations: the reference server behind a proxy that breaks exactly one
// behaviour. Each names the check that must catch it; flaws.test.ts runs the kit against every one.
// Whether a fault shows only with --strict, --rate-limit-key or --ban-check follows from that check.
import type { OptionalPhase } from '../../options.ts';
import type { SecondServerOptions } from '../second-server/index.ts';
import { BEHAVIOUR_FAULTS } from './behaviour.ts';
import { CONCURRENCY_FAULTS } from './concurrency.ts';
import { INPUT_FAULTS } from './input.ts';
import type { FaultBehaviour } from './proxy.ts';
import { RATE_LIMIT_FAULTS } from './rate-limit.ts';
import { STORED_FAULTS } from './stored.ts';
import { VARIATION_FAULTS } from './variations.ts';

export { RETRY_AFTER_AS_DATE } from './rate-limit.ts';

export interface Fault extends FaultBehaviour {
  id: string;
  area: string;
  description: string;
  /** The check that must report it. */
  caughtBy: string;
  /** The check that catches it on the second implementation, where its choices make another check the witness. */
  onSecond?: string;
  /** The phase that finds it (a generated one, or concurrency): the fixed checks alone miss it. */
  foundBy?: OptionalPhase;
  /**
   * This fault is a build of the second implementation: on the second implementation the harness
   * starts that build, with no fault proxy in front; on the reference server the fault's proxy
   * behaviour (request/response) emulates it.
   */
  secondBuild?: SecondServerOptions;
}

export const FAULTS: readonly Fault[] = [
  ...BEHAVIOUR_FAULTS,
  ...STORED_FAULTS,
  ...INPUT_FAULTS,
  ...RATE_LIMIT_FAULTS,
  ...VARIATION_FAULTS,
  ...CONCURRENCY_FAULTS,
];
