// What the model phase sends: a program of rounds, each round requests that as many clients send at
// once, every request with the credentials it is sent with and what the specification expects of its
// answer. A program is data: it is generated from a seed (generate.ts), sent (execute.ts), shrunk
// (shrink.ts), saved and sent again with `conform --replay` (history-file.ts). It never holds a key:
// credentials name the run's keys by role and a spelling of the Authorization field.
import type { Expectation } from '../generate/cases.ts';
import type { OperationId } from '../../judge/contract.ts';

/** The keys a program may use, by their role in the run (never their value). */
export type KeyRole = 'api-key' | 'rate-limit-key';

/**
 * Ways to write the Authorization field that carry the same key: the scheme is case-insensitive
 * (RFC 9110 §11.1) and separated from the token by one or more spaces (RFC 6750 §2.1, `1*SP`). Two
 * spaces refused is a should-level finding of the hand-written checks (variations.scheme-spaces), so
 * the model holds a 401 to them against no must.
 */
export const SPELLINGS = {
  canonical: (key: string) => `Bearer ${key}`,
  'lower-scheme': (key: string) => `bearer ${key}`,
  'upper-scheme': (key: string) => `BEARER ${key}`,
  'two-spaces': (key: string) => `Bearer  ${key}`,
} as const satisfies Record<string, (key: string) => string>;
export type Spelling = keyof typeof SPELLINGS;

/**
 * Authorization fields that carry no valid key, most of them made from the API key the way a careless
 * comparison would still admit them: each must be answered 401 (or refused by an address limit).
 * `unknown` is a key of the kit's own. Left out, as the hand-written checks judge them at should level
 * only (conformance/README.md): the key in another case (variations.key-case), and a second token
 * after the key.
 */
export const INVALID_CREDENTIALS = {
  none: () => null,
  unknown: () => 'Bearer conformance-unknown-model',
  'scheme-only': () => 'Bearer',
  'key-longer': (key: string) => `Bearer ${key}x`,
  'key-shorter': (key: string) => `Bearer ${key.slice(0, -1)}`,
  'key-as-basic': (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
} as const satisfies Record<string, (key: string) => string | null>;
export type InvalidCredentials = keyof typeof INVALID_CREDENTIALS;

export type Credentials = { key: KeyRole; spelling: Spelling } | { invalid: InvalidCredentials };

/** Where a GET /pets/{id} points: a literal path segment, or the id the answer to an earlier create of the program gave. */
export type PetRef = { literal: string } | { createdBy: number };

export type StepRequest =
  | {
      op: 'create';
      body: { json: unknown } | { raw: string };
      named: boolean;
      contentType?: string;
      /** The body also carries `id`: the id an earlier create of the program was given (the service assigns ids; a client's is ignored or refused). */
      idOf?: number;
    }
  | { op: 'get'; pet: PetRef; head?: true }
  | { op: 'list'; query: Record<string, string>; head?: true; walk?: number }
  /** The next page of a walk: the Link rel="next" of the walk's last page. */
  | { op: 'next'; walk: number }
  /** A method the description does not give the path (on /pets/{id}, an id no store hands out). */
  | { op: 'other'; method: string; path: '/pets' | '/pets/{unknown}' };

export interface Step {
  /** Unique in its program, kept by shrinking: a create's pet and a walk are named by it. */
  id: number;
  client: number;
  credentials: Credentials;
  request: StepRequest;
  /** What the specification asks of the answer to this input, the limiter aside (generate/cases.ts). */
  expect: Expectation;
  /** In words, for tables: "create without categoryId". */
  label: string;
}

export interface Program {
  seed: number;
  clients: number;
  /** Each round's requests are sent at once, one per client; a round starts when the one before has its answers. */
  rounds: Step[][];
  /**
   * Rounds (by index) sent only once the rate-limit key's window has passed: its last Reset, and the
   * Retry-After of its last refusal (within --max-wait; with --no-wait they are sent at once).
   */
  windowWaits?: number[];
}

export const OPERATION_OF: Readonly<Record<StepRequest['op'], OperationId>> = {
  create: 'createPet',
  get: 'getPet',
  list: 'listPets',
  next: 'listPets',
  other: 'listPets',
};

export function steps(program: Program): Step[] {
  return program.rounds.flat();
}

export function stepCount(program: Program): number {
  return program.rounds.reduce((n, round) => n + round.length, 0);
}

/** How many clients a program's rounds really use. */
export function clientsUsed(program: Program): number {
  return new Set(steps(program).map((s) => s.client)).size;
}

/** The program with only the steps `keep` holds, empty rounds dropped. */
export function keepSteps(program: Program, keep: ReadonlySet<number>): Program {
  const waits = new Set(program.windowWaits ?? []);
  const rounds: Step[][] = [];
  const windowWaits: number[] = [];
  let pending = false;
  program.rounds.forEach((round, i) => {
    pending ||= waits.has(i);
    const kept = round.filter((s) => keep.has(s.id));
    if (kept.length === 0) return;
    if (pending) windowWaits.push(rounds.length);
    pending = false;
    rounds.push(kept);
  });
  const { windowWaits: _, ...rest } = program;
  return { ...rest, rounds, ...(windowWaits.length > 0 ? { windowWaits } : {}) };
}

export function describeCredentials(c: Credentials): string {
  return 'invalid' in c ? `invalid: ${c.invalid}` : `${c.key} (${c.spelling})`;
}
