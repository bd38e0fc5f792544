// What the judge keeps of one key, and how it is built: its ledger and the views each area of checks
// records through, its window verdict, its client recorder and its sample, all bounded by the
// judge's limits.
import {
  HISTORY_CHECK_ID,
  JUDGE_CHECKS,
  Ledger,
  LIVE_CHECKS,
  rateLimitChecks,
  rateLimitVerdict,
  type CheckLedger,
  type Level,
  type RateLimitVerdict,
} from '../judge/index.ts';
import { ClientRecorder } from '../judge/client-obligations.ts';
import type { Tolerances } from '../spec/rules/snapshot.js';
import type { TimelinePoint } from '../spec/rules/timeline-svg.js';
import type { LastWindow } from './faults.ts';
import type { JudgeLimits } from './judge-limits.ts';
import { ExchangeSample } from './sample.ts';
import { TellingLedger } from './telling-ledger.ts';

export interface KeyState {
  id: string;
  label: string;
  keyId: string;
  ledger: Ledger;
  views: CheckLedger[];
  /** Where the store's history (one for all keys) records what the key's exchanges showed of it. */
  history: CheckLedger;
  windows: RateLimitVerdict;
  /** One recorder per key, so a key summarised takes its client state with it. */
  client: ClientRecorder;
  sample: ExchangeSample;
  requests: number;
  refused: number;
  /** How many of its exchanges the window rules judged: the index of the next timeline point. */
  judged: number;
  /** Client findings by timeline point (its index among all judged), drawn with the server's broken rules. */
  clientMarks: Map<number, Array<{ kind: string; level: Level; detail: string }>>;
  /** Answers the proxy injected, drawn on the timeline as such (the last timelinePoints). */
  injected: TimelinePoint[];
  /** The last X-RateLimit-Reset and -Limit the server sent: an injected 429 names the same window. */
  lastWindow: LastWindow;
  /** The obligations' last verdicts, to tell each one once when it turns to no. */
  verdicts: Map<string, string>;
  /** Distinct causes told per check. */
  causes: Map<string, number>;
}

type Area = { name: string; checks: readonly { id: string }[] };
const HISTORY_AREA: Area = { name: 'history', checks: [{ id: HISTORY_CHECK_ID }] };
/** Each area's check ids, one list per area for every key's ledger (the ledger checks each list once). */
const AREA_IDS = new Map<Area, string[]>();
function idsOf(area: Area): string[] {
  let ids = AREA_IDS.get(area);
  if (!ids) AREA_IDS.set(area, (ids = area.checks.map((c) => c.id)));
  return ids;
}

/** A key's state when its first exchange is judged; `told` hears each failure of a server check. */
export function createKeyState(input: {
  id: string;
  label: string;
  keyId: string;
  dateHeader: boolean;
  tolerances?: Partial<Tolerances>;
  limits: JudgeLimits;
  deprecated: ReadonlySet<string>;
  told: (checkId: string, message: string, rule?: string) => void;
}): KeyState {
  const ledger = new Ledger(JUDGE_CHECKS);
  const scoped = (area: Area) => new TellingLedger(ledger.scope(area.name, idsOf(area)), input.told);
  return {
    id: input.id,
    label: input.label,
    keyId: input.keyId,
    ledger,
    views: LIVE_CHECKS.map(scoped),
    history: scoped(HISTORY_AREA),
    windows: rateLimitVerdict(scoped(rateLimitChecks), {
      dateHeader: input.dateHeader,
      maxPoints: input.limits.timelinePoints,
      ...(input.tolerances ? { tolerances: input.tolerances } : {}),
    }),
    // The judge draws the key's timeline from the window rules' points: the recorder keeps none.
    client: new ClientRecorder(input.deprecated, { timelinePoints: 0 }),
    sample: new ExchangeSample(input.limits.keep),
    requests: 0,
    refused: 0,
    judged: 0,
    clientMarks: new Map(),
    injected: [],
    lastWindow: {},
    verdicts: new Map(),
    causes: new Map(),
  };
}
