// The phases of a run in the order they send, each with its title and when it runs (the options
// decide; a run with --replay sends the saved history and nothing else). run.ts runs them in turn.
import type { Phase, ResolvedOptions } from './checks/area.ts';
import { GENERATED_PHASES, type GeneratedPhase } from './options.ts';

export interface PhasePlan {
  phase: Phase;
  title: string;
  runs: (options: ResolvedOptions) => boolean;
}

const GENERATED_TITLES: Record<GeneratedPhase, string> = {
  examples: "generated: the description's examples",
  coverage: 'generated: boundaries, negative data, other methods and media types',
  fuzzing: 'generated: fuzzing the schemas (fast-check)',
  stateful: 'generated: stateful sequences (create, get, list, pages)',
};

/** A run with --replay sends the saved history and nothing else. */
const notReplay = (o: ResolvedOptions) => o.replay === undefined;

export const PHASES: readonly PhasePlan[] = [
  { phase: 'contract', title: 'contract: status codes, headers, bodies, auth', runs: notReplay },
  { phase: 'dredd', title: 'Dredd 14 over the derived description', runs: (o) => o.dredd && notReplay(o) },
  { phase: 'behaviour', title: 'full: behaviour (auth, persistence, limit, status, pagination)', runs: (o) => o.profile === 'full' && notReplay(o) },
  ...GENERATED_PHASES.map((phase) => ({
    phase,
    title: GENERATED_TITLES[phase],
    runs: (o: ResolvedOptions) => o.phases.includes(phase) && (phase !== 'stateful' || o.profile === 'full') && notReplay(o),
  })),
  {
    phase: 'rate-limit',
    title: 'rate limits: exhausting the window of --rate-limit-key',
    runs: (o) => o.profile === 'full' && o.rateLimitKey !== undefined && notReplay(o),
  },
  // After the rate limits: its burst on --rate-limit-key goes into the window they left readmitted.
  {
    phase: 'concurrency',
    title: 'concurrency: creates, lists and a rate-limit burst sent at once',
    runs: (o) => o.profile === 'full' && o.phases.includes('concurrency') && notReplay(o),
  },
  // Last: its requests judge what the target does after everything else, --rate-limit-key's window included.
  {
    phase: 'model',
    title: 'model: a random history of every operation, sent by several clients at once and judged whole',
    runs: (o) => o.profile === 'full' && (o.phases.includes('model') || !notReplay(o)),
  },
];
