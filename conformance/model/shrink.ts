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

/**
 * What each step needs kept beside it for a failure of `check`: the same for every part of one
 * execution, so a shrink builds it once and walks it for each part it tries (a part is judged up to
 * MAX_TRIES times, each over the whole history).
 */
export interface Needs {
  /** Steps a step needs, by its id: what it refers to, and what overlapped it. */
  edges: Map<number, number[]>;
  /** Of a window failure: each step's key and round, and each key's steps by round. */
  windows: Map<number, { key: string; round: number }>;
  byRound: Map<string, Array<{ id: number; round: number }>>;
}

export function needsOf(execution: Execution, check: ModelCheck): Needs {
  const family = FAMILY_OF[check];
  const all = execution.sent;
  const edges = new Map<number, number[]>();
  const windows = new Map<number, { key: string; round: number }>();
  const byRound = new Map<string, Array<{ id: number; round: number }>>();
  const creates = all.filter((o) => o.step.request.op === 'create' && o.exchange);
  for (const s of all) {
    const r = s.step.request;
    const needed: number[] = [];
    if (r.op === 'get' && 'createdBy' in r.pet) needed.push(r.pet.createdBy);
    if (r.op === 'next') {
      needed.push(r.walk);
      for (const o of all) if (o.step.request.op === 'next' && o.step.request.walk === r.walk && o.step.id < s.step.id) needed.push(o.step.id);
    }
    if (family === 'store' && (r.op === 'list' || r.op === 'next') && s.exchange) {
      for (const o of creates) if (overlaps(o.exchange!, s.exchange)) needed.push(o.step.id);
    }
    if (family === 'windows' && 'key' in s.step.credentials) {
      // Not by step id: the requests of a round were in flight together, and the server may have
      // decided a later step first. Every request of the key in its round or before (byRound), and
      // any other that overlapped it in time, is part of the window it was judged in.
      const key = s.step.credentials.key;
      windows.set(s.step.id, { key, round: s.round });
      const ofKey = byRound.get(key) ?? [];
      ofKey.push({ id: s.step.id, round: s.round });
      byRound.set(key, ofKey);
      for (const o of all) {
        if ('key' in o.step.credentials && o.step.credentials.key === key && o.exchange && s.exchange && overlaps(o.exchange, s.exchange))
          needed.push(o.step.id);
      }
    }
    if (needed.length > 0) edges.set(s.step.id, needed);
  }
  for (const ofKey of byRound.values()) ofKey.sort((a, b) => a.round - b.round);
  return { edges, windows, byRound };
}

/** `keep` with everything its steps need to stay a fair history, for a failure of `check`. */
export function closure(execution: Execution, keep: ReadonlySet<number>, check: ModelCheck, needs: Needs = needsOf(execution, check)): Set<number> {
  const out = new Set<number>();
  const queue: number[] = [];
  const add = (id: number) => {
    if (out.has(id)) return;
    out.add(id);
    queue.push(id);
  };
  for (const id of keep) add(id);
  // Per key, the latest round whose requests are all kept already.
  const roundsKept = new Map<string, number>();
  for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
    for (const needed of needs.edges.get(id) ?? []) add(needed);
    const window = needs.windows.get(id);
    if (window === undefined || (roundsKept.get(window.key) ?? -1) >= window.round) continue;
    roundsKept.set(window.key, window.round);
    for (const o of needs.byRound.get(window.key)!) {
      if (o.round > window.round) break;
      add(o.id);
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
  const needs = needsOf(execution, check);
  let keep = closure(execution, new Set(finding.exchanges.map((e) => stepOf.get(e)).filter((id): id is number => id !== undefined)), check, needs);
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
    const candidate = closure(execution, without, check, needs);
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
