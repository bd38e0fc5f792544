// What a flaw is: one behaviour of a real implementation broken on purpose, by the flaw proxy's
// hooks or by a build of the second implementation, and the check that must catch it. Each area's
// module defines its own; catalogue.ts is built from them.
import type { OptionalPhase } from '../../../judge/phases.ts';
import type { SecondServerOptions } from '../second-server/index.ts';
import type { FlawBehaviour } from './proxy.ts';

export interface Flaw extends FlawBehaviour {
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
   * This flaw is a build of the second implementation: on the second implementation the harness
   * starts that build, with no flaw proxy in front; on the reference server the flaw's proxy
   * behaviour (request/response) emulates it.
   */
  secondBuild?: SecondServerOptions;
}
