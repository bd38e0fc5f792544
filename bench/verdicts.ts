// The verdict on each of the targets (TARGETS, in figures.ts): met, missed (with why, from
// what the run measured), not settled (a ratio whose rounds disagree: settle.ts) or not measured
// (with the reason). One function per family of targets.
import type { CaseId } from './cases.ts';
import { clean, find, formatCount, formatRatio, MB, problem, TARGETS } from './figures.ts';
import type { CaseResult, Headroom, RunSettings, TargetCheck } from './report-types.ts';
import { pairRounds, settle, type Settlement } from './settle.ts';
import type { CaseSummary } from './stats.ts';

type Measured = CaseResult & { summary: CaseSummary };

/** Why a ratio target was missed, from what the run measured: the CPU each side spends per request, and the generator. */
function ratioWhy(reference: Measured, peer: Measured, headroom: Headroom): string {
  const parts = [
    `${reference.id} ${formatCount(reference.summary.rps)}/s at ${formatCount(reference.summary.cpuMicrosPerRequest)} us server CPU per request, ` +
      `${peer.id} ${formatCount(peer.summary.rps)}/s at ${formatCount(peer.summary.cpuMicrosPerRequest)} us`,
  ];
  if (headroom.headroom !== null && headroom.headroom < TARGETS.headroom)
    parts.push(`generator headroom only ${formatRatio(headroom.headroom, 1)}: ratios compressed`);
  return parts.join('; ');
}

/**
 * A ratio target's verdict from its rounds (settle.ts): quoted and judged only when they agree;
 * a miss gives the lowest and highest round, the noise its verdict stands in.
 */
function ratioCheck(
  target: string,
  [x, y]: [Measured, Measured],
  by: 'rps' | 'cpu',
  meets: (v: number) => boolean,
  why: () => string,
  digits = 2,
): TargetCheck {
  const s: Settlement = settle(pairRounds(x.summary, y.summary, by), meets);
  if (!s.settled) {
    const measured = s.low === null ? '-' : s.low === s.high ? formatRatio(s.low, digits) : `${formatRatio(s.low, digits)}-${formatRatio(s.high!, digits)}`;
    return { target, measured, verdict: 'not settled', why: `${s.why}; ${why()}` };
  }
  const met = meets(s.value);
  const range = s.low === s.high ? '' : `; round by round ${formatRatio(s.low)}-${formatRatio(s.high)}`;
  return { target, measured: formatRatio(s.value, digits), verdict: met ? 'met' : 'missed', why: met ? undefined : `${why()}${range}` };
}

/** Not measured, with why: the first of the two cases that has no figures. */
function notMeasured(target: string, cases: readonly CaseResult[], a: CaseId, b: CaseId): TargetCheck {
  const broken = !clean(find(cases, a)) ? a : b;
  return { target, measured: '-', verdict: 'not measured', why: problem(find(cases, broken), broken) };
}

/** The reference over bare hapi, Prism and json-server, for the list and the get. */
function peerTargets(cases: readonly CaseResult[], headroom: Headroom): TargetCheck[] {
  const peers: Array<[string, string, number, number]> = [
    ['hapi', 'bare hapi', TARGETS.overHapi, 2],
    ['prism', 'Prism', TARGETS.overPrism, 1],
    ['json', 'json-server', TARGETS.overJsonServer, 1],
  ];
  return (['list', 'get'] as const).flatMap((kind) =>
    peers.map(([prefix, name, min, digits]): TargetCheck => {
      const target = `${kind} >= ${min}x ${name}`;
      const peer = `${prefix}-${kind}` as CaseId;
      const ref = find(cases, `ref-${kind}`);
      const other = find(cases, peer);
      if (!clean(ref) || !clean(other)) return notMeasured(target, cases, `ref-${kind}`, peer);
      return ratioCheck(
        target,
        [ref, other],
        'rps',
        (v) => v >= min,
        () => ratioWhy(ref, other, headroom),
        digits,
      );
    }),
  );
}

/** Durable creates per second on the file store, at the connections the target names. */
function createTarget(cases: readonly CaseResult[], settings: RunSettings): TargetCheck {
  const post = find(cases, 'ref-post');
  const target = `create >= ${formatCount(TARGETS.createsPerSecond)} durable/s, file store, ${TARGETS.createConnections} connections`;
  if (!clean(post)) return { target, measured: '-', verdict: 'not measured', why: problem(post, 'ref-post') };
  const measured = `${formatCount(post.summary.rps)}/s`;
  if (settings.connections !== TARGETS.createConnections)
    return { target, measured, verdict: 'not measured', why: `run with --connections ${TARGETS.createConnections}` };
  const met = post.summary.rps >= TARGETS.createsPerSecond;
  const busy = post.summary.serverBusy;
  const cpu = formatCount(post.summary.cpuMicrosPerRequest);
  const why = met
    ? undefined
    : busy >= 0.9
      ? `the server's core is saturated at ${cpu} us of CPU per create`
      : `the server's core was ${(busy * 100).toFixed(0)}% busy (${cpu} us of CPU per create): the rest is waiting, for the disk's fdatasync`;
  return { target, measured, verdict: met ? 'met' : 'missed', why };
}

/** The compiled server's peak RSS on 100,000 pets, without tsx in its process. */
function rssTarget(cases: readonly CaseResult[]): TargetCheck {
  const rssCase = find(cases, 'list-100k');
  const target = `RSS < ${TARGETS.rssBytesAt100k / MB} MB at 100,000 pets, compiled, no tsx`;
  if (!rssCase || rssCase.peakRssBytes === null) return { target, measured: '-', verdict: 'not measured', why: problem(rssCase, 'list-100k') };
  const peak = rssCase.peakRssBytes;
  const measured = `${(peak / MB).toFixed(1)} MB`;
  if (rssCase.tsx) return { target, measured, verdict: 'missed', why: 'tsx was found in the server process' };
  const met = peak < TARGETS.rssBytesAt100k;
  return { target, measured, verdict: met ? 'met' : 'missed', why: met ? undefined : `peak VmHWM of the compiled server, start-up and load included` };
}

function headroomTarget(headroom: Headroom, settings: RunSettings): TargetCheck {
  const target = `load generator headroom >= ${TARGETS.headroom}x the fastest server`;
  if (headroom.headroom === null) return { target, measured: '-', verdict: 'not measured', why: headroom.why };
  const met = headroom.headroom >= TARGETS.headroom;
  return {
    target,
    measured: formatRatio(headroom.headroom, 1),
    verdict: met ? 'met' : 'missed',
    why: met
      ? undefined
      : `${settings.generator.name} reaches about ${formatCount(headroom.ceiling!)}/s on its core; ${headroom.fastest!.id} ran at ${formatCount(headroom.fastest!.rps)}/s`,
  };
}

/** A ratio of two cases against a bound; none when the first case was not selected (it is optional). */
function pairTarget(
  cases: readonly CaseResult[],
  target: string,
  [a, b]: [CaseId, CaseId],
  by: 'rps' | 'cpu',
  meets: (v: number) => boolean,
  why: (x: Measured, y: Measured) => string,
): TargetCheck[] {
  const x = find(cases, a);
  const y = find(cases, b);
  if (!x) return [];
  if (!clean(x) || !clean(y)) return [notMeasured(target, cases, a, b)];
  return [ratioCheck(target, [x, y], by, meets, () => why(x, y))];
}

/** The price of scaling out (PostgreSQL + Redis, --workers), when their cases ran. */
function scaleOutTargets(cases: readonly CaseResult[]): TargetCheck[] {
  const cpuOf = (c: Measured) => `${c.id} ${formatCount(c.summary.cpuMicrosPerRequest)} us`;
  const rateOf = (c: Measured) => `${c.id} ${formatCount(c.summary.rps)}/s`;
  return [
    ...pairTarget(
      cases,
      `pg-redis-list server CPU per request <= ${TARGETS.scaleOutCpu}x ref-list`,
      ['pg-redis-list', 'ref-list'],
      'cpu',
      (v) => v <= TARGETS.scaleOutCpu,
      (x, y) => `${cpuOf(x)} vs ${cpuOf(y)} server CPU per request`,
    ),
    ...pairTarget(
      cases,
      `pg-post >= ${TARGETS.postgresCreates}x ref-post`,
      ['pg-post', 'ref-post'],
      'rps',
      (v) => v >= TARGETS.postgresCreates,
      (x, y) => `${rateOf(x)} vs ${rateOf(y)} durable creates`,
    ),
    ...pairTarget(
      cases,
      `--workers 2 >= ${TARGETS.workersOverOne}x one instance, same core`,
      ['workers-list', 'pg-redis-list'],
      'rps',
      (v) => v >= TARGETS.workersOverOne,
      (x, y) => `${rateOf(x)} vs ${rateOf(y)}: the cluster's own overhead on one core`,
    ),
  ];
}

/** The store-size targets of an earlier issue (p99 does not grow with the store), when their cases ran. */
function storeSizeTargets(cases: readonly CaseResult[]): TargetCheck[] {
  const growth = (target: string, small: CaseId, large: CaseId): TargetCheck[] => {
    const s = find(cases, small);
    const l = find(cases, large);
    if (!s) return [];
    if (!clean(s) || !clean(l)) return [notMeasured(target, cases, small, large)];
    const value = l.summary.p99 / s.summary.p99;
    return [
      {
        target,
        measured: `${l.summary.p99.toFixed(2)} vs ${s.summary.p99.toFixed(2)} ms (x${value.toFixed(2)})`,
        verdict: value <= TARGETS.p99Growth ? 'met' : 'missed',
      },
    ];
  };
  return [
    ...growth(`list p99 at 100,000 <= ${TARGETS.p99Growth}x p99 at 1,000 pets (first page)`, 'list-1k', 'list-100k'),
    ...growth(`list p99 at 100,000 <= ${TARGETS.p99Growth}x p99 at 1,000 pets (mid-store page)`, 'deep-1k', 'deep-100k'),
  ];
}

/** Every target's verdict, in the order the table prints them. */
export function checkTargets(cases: readonly CaseResult[], settings: RunSettings, headroom: Headroom): TargetCheck[] {
  return [
    ...peerTargets(cases, headroom),
    createTarget(cases, settings),
    rssTarget(cases),
    headroomTarget(headroom, settings),
    ...scaleOutTargets(cases),
    ...storeSizeTargets(cases),
  ];
}
