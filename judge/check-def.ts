// What a check is: a stable id, a level and where its rule comes from. Each area of checks/ defines
// its own; the catalogue (checks/index.ts) is built from them. The levels: conformance/README.md.
import type { OptionalPhase } from './phases.ts';

export type Level = 'must' | 'should';
export type Profile = 'contract' | 'full';

/** What a check needs besides its profile before it can run: a key, an option, or a phase --phases may leave out. */
export type Need = 'rate-limit-key' | 'ban-check' | 'dredd' | 'max-response-time' | OptionalPhase;

export interface CheckDef {
  id: string;
  level: Level;
  /** The lowest profile that runs it: contract checks also run in the full profile. */
  profile: Profile;
  /** Section of the specification (or RFC) the rule comes from. */
  section: string;
  title: string;
  needs?: readonly Need[];
  /**
   * What the check reads of an answer. `status-and-headers`: an answer whose body was too large to
   * read (--max-body) is judged all the same; otherwise such an answer cannot fail the check, which
   * reports it as not judged instead.
   */
  reads?: 'status-and-headers';
}

/** How each need is met, in the words of the command line. */
export const NEED_FLAGS: Readonly<Record<Need, string>> = {
  'rate-limit-key': '--rate-limit-key',
  'ban-check': '--ban-check',
  dredd: 'Dredd (off with --no-dredd)',
  'max-response-time': '--max-response-time <ms>',
  examples: '--phases examples',
  coverage: '--phases coverage',
  fuzzing: '--phases fuzzing',
  stateful: '--phases stateful',
  concurrency: '--phases concurrency',
  model: '--phases model',
};

/** Sections of the specification (and RFCs) the checks cite. */
export const SECTION = {
  list: 'Endpoints › List animals',
  create: 'Endpoints › Add an animal',
  get: 'Endpoints › Get an animal (deprecated)',
  auth: 'Authentication',
  plans: 'Limits › Request rate limits by plan',
  errors: 'Errors',
  headers: 'Limits › Rate limit response headers',
  exceeded: 'Limits › Behaviour when the limit is exceeded',
  versioning: 'Versioning',
} as const;
