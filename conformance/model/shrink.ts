// A failing history made small: the fewest steps of what was sent that the judge still finds failing
// the same check, then the fewest clients that send them. Shrinking judges parts of the recorded
// history (no request is sent again), so a part must stay a fair history of its own: a step keeps
// what it refers to (the create whose pet it reads, the earlier pages of its walk), a store failure
// keeps every create that overlapped a walk it keeps (else a walk under way would pass for a quiet
// one), and a window failure keeps every request of its key sent in the same round or an earlier one,
// and any that overlapped them in time (a window without some of its requests counts wrong). The result is then sent again (replay) to see that it fails for real.
import type { Exchange } from '../../judge/exchange.ts';
import type { Execution, Sent } from './execute.ts';
import { keepSteps, type Program } from './program.ts';
import { FAMILY_OF, judgeExecution, type ModelCheck, type ModelFinding, type VerdictOptions } from './verdict.ts';

/** Judgements a shrink may make at most: each is one judging of a part of the history, no request. */
const MAX_TRIES = 300;

export interface Shrunk {
  check: ModelCheck;
  /** The finding on the shrunk history. */
  finding: ModelFinding;
  /** The steps kept, as sent, in program order. */
  sent: Sent[];
  /** The program of those steps, its clients renumbered from 0 in each round. */
  program: Program;
  /** Steps of the whole history, and tries the shrink made. */
  from: number;
  tries: number;
}

function overlaps(a: Exchange, b: Exchange): boolean {
  return a.sentAt <= b.receivedAt && b.sentAt <= a.receivedAt;
}

/** `keep` with everything its steps need to stay a fair history, for a failure of `check`. */
export function closure(execution: Execution, keep: ReadonlySet<number>, check: ModelCheck): Set<number> {
  const out = new Set(keep);
  const family = FAMILY_OF[check];
  const all = execution.sent;
  for (let changed = true; changed;) {
    changed = false;
    const add = (id: number) => {
      if (!out.has(id)) {
        out.add(id);
        changed = true;
      }
    };
    for (const s of all.filter((x) => out.has(x.step.id))) {
      const r = s.step.request;
      if (r.op === 'get' && 'createdBy' in r.pet) add(r.pet.createdBy);
      if (r.op === 'next') {
        add(r.walk);
        for (const o of all) if (o.step.request.op === 'next' && o.step.request.walk === r.walk && o.step.id < s.step.id) add(o.step.id);
      }
      if (family === 'store' && (r.op === 'list' || r.op === 'next') && s.exchange) {
        for (const o of all) if (o.step.request.op === 'create' && o.exchange && overlaps(o.exchange, s.exchange)) add(o.step.id);
      }
      if (family === 'windows' && 'key' in s.step.credentials) {
        // Not by step id: the requests of a round were in flight together, and the server may have
        // decided a later step first. Every request of the key in its round or before, and any other
        // that overlapped it in time, is part of the window it was judged in.
        const key = s.step.credentials.key;
        for (const o of all) {
          if (!('key' in o.step.credentials) || o.step.credentials.key !== key) continue;
          if (o.round <= s.round || (o.exchange && s.exchange && overlaps(o.exchange, s.exchange))) add(o.step.id);
        }
      }
    }
  }
  return out;
}

function part(execution: Execution, keep: ReadonlySet<number>): Execution {
  return { ...execution, sent: execution.sent.filter((s) => keep.has(s.step.id)) };
}

/** Each round's steps given clients 0, 1, ... in order: as many clients as the widest round needs. */
function fewestClients(program: Program): Program {
  const rounds = program.rounds.map((round) => round.map((step, client) => ({ ...step, client })));
  return { ...program, clients: Math.max(1, ...rounds.map((r) => r.length)), rounds };
}

/** The smallest part of the history that still fails `finding.check`, starting from the steps its evidence names. */
export function shrink(program: Program, execution: Execution, finding: ModelFinding, options: VerdictOptions): Shrunk {
  const check = finding.check;
  const family = FAMILY_OF[check];
  let tries = 0;
  const failing = (keep: ReadonlySet<number>): ModelFinding | undefined => {
    tries++;
    return judgeExecution(part(execution, keep), options, family).findings.find((f) => f.check === check);
  };
  const stepOf = new Map(execution.sent.filter((s) => s.exchange).map((s) => [s.exchange!, s.step.id]));
  const everything = new Set(execution.sent.filter((s) => s.exchange).map((s) => s.step.id));
  let keep = closure(execution, new Set(finding.exchanges.map((e) => stepOf.get(e)).filter((id): id is number => id !== undefined)), check);
  let found = failing(keep);
  if (!found) {
    keep = everything;
    found = failing(keep) ?? finding;
  }
  // One step at a time, latest first, while the failure stays and the budget lasts.
  for (const id of [...keep].sort((a, b) => b - a)) {
    if (tries >= MAX_TRIES || !keep.has(id)) continue;
    const without = new Set(keep);
    without.delete(id);
    const candidate = closure(execution, without, check);
    if (candidate.has(id)) continue;
    const still = failing(candidate);
    if (still) {
      keep = candidate;
      found = still;
    }
  }
  return {
    check,
    finding: found,
    sent: execution.sent.filter((s) => keep.has(s.step.id)),
    program: fewestClients(keepSteps(program, keep)),
    from: everything.size,
    tries,
  };
}
