// The concurrency phase's verdicts, read from the window rules (judge/rules/window-rules.js), the one
// judge of a rate limit: what a burst on --rate-limit-key and a batch of --api-key sent at once broke.
// Pure; concurrency.test.ts tables them in many arrival orders.
import { DEFAULT_TOLERANCES, type Snapshot, type Tolerances } from '../../spec/rules/snapshot.js';
import { createWindowRules, type Kind, type Outcome, type Violation } from '../../judge/rules/window-rules.js';

/** A verdict that judged something (the rules' violations that fail it), or why there was nothing to judge. */
export type Verdict = { judged: true; problems: Violation[] } | { judged: false; why: string };

/** What the key had left, and in which window, before the burst: its last answer. */
export interface Before {
  remaining: number;
  reset: number;
}

/** The rules concurrency.burst-exact reads, and concurrency.burst-remaining-distinct. */
const EXACT: readonly Kind[] = ['over_admitted', 'under_admitted', 'remaining_nonzero_on_429'];
const DISTINCT: readonly Kind[] = ['remaining_not_decremented', 'remaining_skipped'];

/** The violations of `kinds` on answers of the batch, and whether the rules judged `decisive` on any of them. */
function readOutcome(out: Outcome, batch: ReadonlySet<unknown>, kinds: readonly Kind[], decisive: Kind) {
  return {
    problems: out.violations.filter((v) => kinds.includes(v.kind) && v.refs.some((r) => batch.has(r))),
    judged: out.judged.some((j) => j.kind === decisive && batch.has(j.ref)),
  };
}

/** The values, each once, in a fixed order (never the order of arrival). */
const distinct = <T extends string | number | null>(values: readonly T[]): T[] =>
  [...new Set(values)].sort((a, b) => String(a).localeCompare(String(b), 'en', { numeric: true }));

/**
 * The burst's two verdicts, read from the window rules' Outcome on it. The count is judged only where
 * the rules counted a refusal of the burst against its window: elsewhere the window may have moved.
 * `burst`: the snapshots the Outcome's refs name.
 */
export function judgeBurst(out: Outcome, burst: readonly Snapshot[], before: Before): { exact: Verdict; distinct: Verdict } {
  const refs = new Set(burst.map((s) => s.ref));
  const exact = readOutcome(out, refs, EXACT, 'under_admitted');
  const values = readOutcome(out, refs, DISTINCT, 'remaining_not_decremented');
  const undecided = burst.filter((s) => !s.admitted && !s.refused);
  const unread = burst.filter((s) => s.status !== 0 && s.malformed.length > 0);
  const resets = distinct(burst.map((s) => s.reset));
  const moved = resets.some((r) => r === null || Math.abs(r - before.reset) > DEFAULT_TOLERANCES.roundingSeconds);
  const why =
    undecided.length > 0
      ? `${undecided.length} of the ${burst.length} answers were neither admitted nor refused (${distinct(undecided.map((s) => s.status || 'no answer')).join(', ')}): the window's count is not known`
      : unread.length > 0
        ? `${unread.length} of the ${burst.length} answers lack integer X-RateLimit-Limit/Remaining/Reset (see headers.rate-limit)`
        : moved
          ? `the window moved during the burst: the key's last answer before it named Reset ${before.reset}, its answers name ${resets.join(', ')}, and no refusal could be counted against the window it was sent into`
          : `no answer of the burst was refused where the window rules could count its window (see ratelimit.*)`;
  return {
    // A request the server may or may not have counted leaves a refusal inside the allowance unproven.
    exact: exact.problems.length > 0 || (exact.judged && undecided.length === 0) ? { judged: true, problems: exact.problems } : { judged: false, why },
    distinct:
      values.problems.length > 0 || values.judged
        ? { judged: true, problems: values.problems }
        : {
            judged: false,
            why: burst.some((s) => s.admitted)
              ? `no admitted answer of the burst could be compared with the Remaining before it in one window${undecided.length > 0 || unread.length > 0 || moved ? ` (${why})` : ''}`
              : `none of the ${burst.length} answers was admitted`,
          },
  };
}

/** One answer of --api-key sent at once with others, and the operation it answered (limits per operation are left open). */
export interface Answered {
  operation: string;
  snapshot: Snapshot;
}

/**
 * Remaining among answers of --api-key sent at once, by window rules per operation (a server may
 * count creates and lists apart). Only a Remaining repeated or risen fails: other operations and
 * clients of the key may make the values fall by more than one.
 */
export function judgeAtOnce(batch: readonly Answered[], before: ReadonlyMap<string, Snapshot>, tolerances?: Partial<Tolerances>): Verdict {
  const problems: Violation[] = [];
  let judged = false;
  for (const operation of distinct(batch.map((a) => a.operation))) {
    const answers = batch.filter((a) => a.operation === operation).map((a) => a.snapshot);
    const prior = before.get(operation);
    if (!prior && answers.length < 2) continue;
    // Other operations' answers are not fed here, so counts are not whole: a combination of readings
    // falls only by what holds without them (a Remaining repeated or risen, a Reset that no reading explains).
    const rules = createWindowRules({ ...(tolerances ? { tolerances } : {}), kinds: ['remaining_not_decremented', 'reset_moved'] });
    if (prior) rules.observe([prior]);
    const found = readOutcome(rules.observe(answers), new Set(answers.map((s) => s.ref)), ['remaining_not_decremented'], 'remaining_not_decremented');
    judged ||= found.judged;
    const context = `${operation}, ${answers.length} answer(s) sent at once${prior ? ` after one with Remaining ${prior.remaining ?? 'missing'}` : ''}`;
    problems.push(...found.problems.map((v) => ({ ...v, detail: `${v.detail} (${context})` })));
  }
  if (!judged && problems.length === 0)
    return { judged: false, why: 'no answer admitted at once could be compared with another of its operation in one window' };
  return { judged: true, problems };
}
