// A fast-check property whose every example is one request to the target, shrinking steps included
// (taken from --max-requests). The larger failing exchanges before the smallest are marked
// superseded, so that the checks that inspect every exchange report the small one.
import fc from 'fast-check';
import type { Exchange } from '../../judge/exchange.ts';
import type { RequestBudget } from './budget.ts';

export interface Problem {
  /** The check the failure belongs to. */
  check: string;
  message: string;
}

export interface Judgement {
  problem?: Problem;
  /** Checks this example passed. */
  passed: string[];
}

export interface FuzzFailure<T> {
  input: T;
  exchange: Exchange;
  problem: Problem;
  shrinks: number;
  seed: number;
  /** fast-check's path to the counterexample: with the seed, replays exactly this example. */
  path: string;
}

export interface FuzzOutcome<T> {
  examples: number;
  failure?: FuzzFailure<T>;
  /** The budget ran out before every example was tried. */
  cut: boolean;
}

export interface FuzzOptions<T> {
  name: string;
  arbitrary: fc.Arbitrary<T>;
  seed: number;
  numRuns: number;
  budget: RequestBudget;
  send: (input: T) => Promise<Exchange>;
  judge: (input: T, exchange: Exchange) => Judgement;
  pass: (check: string) => void;
}

export async function fuzz<T>(options: FuzzOptions<T>): Promise<FuzzOutcome<T>> {
  const failing: Array<{ input: T; exchange: Exchange; problem: Problem }> = [];
  let examples = 0;
  let cut = false;
  // A send that throws ended the run (the target stopped answering): no input of ours failed.
  let thrown: { error: unknown } | undefined;
  const property = fc.asyncProperty(options.arbitrary, async (input) => {
    if (!options.budget.take()) {
      cut = true;
      // Not tried: neither a pass nor a failure (nor a smaller failure, while shrinking).
      fc.pre(false);
    }
    examples++;
    let exchange: Exchange;
    try {
      exchange = await options.send(input);
    } catch (error) {
      thrown ??= { error };
      throw error;
    }
    const verdict = options.judge(input, exchange);
    if (verdict.problem) {
      failing.push({ input, exchange, problem: verdict.problem });
      return false;
    }
    for (const check of verdict.passed) options.pass(check);
    return true;
  });
  const details = await fc.check(property, { seed: options.seed, numRuns: options.numRuns, maxSkipsPerRun: 1000 });
  if (thrown) throw thrown.error;
  const last = failing.at(-1);
  if (!details.failed || !last || details.counterexample === null) return { examples, cut };
  for (const f of failing) if (f !== last) f.exchange.superseded = true;
  last.exchange.purpose = `${last.exchange.purpose} [${options.name}: smallest failing input after ${details.numShrinks} shrinks; seed ${options.seed}, path ${details.counterexamplePath}]`;
  return {
    examples,
    cut,
    failure: {
      input: last.input,
      exchange: last.exchange,
      problem: last.problem,
      shrinks: details.numShrinks,
      seed: options.seed,
      path: details.counterexamplePath ?? '',
    },
  };
}
