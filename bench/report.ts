// The report of one run, as the JSON document `--json` writes: its cases and settings, the figures
// derived from them (figures.ts) and the verdict on each of the targets (verdicts.ts).
// render.ts prints it.
import { cpus } from 'node:os';
import { checkServerCore, computeHeadroom, computeRatios, find, projectWorkers } from './figures.ts';
import { checkTargets } from './verdicts.ts';
import type { BenchReport, CaseResult, RunSettings } from './report-types.ts';

export type {
  CaseResult,
  RunSettings,
  Verdict,
  TargetCheck,
  Headroom,
  ServerCoreCheck,
  PeerRatios,
  Ratios,
  WorkersProjection,
  BenchReport,
} from './report-types.ts';

/** The report of a run that has ended: its cases and settings, with the figures derived from them and this machine. */
export function assembleReport(run: { startedAt: Date; cases: CaseResult[]; settings: RunSettings; notes: readonly string[] }): BenchReport {
  const { cases, settings } = run;
  const notes = [...run.notes];
  const workers = find(cases, 'workers-list');
  if (workers?.cpus && settings.pinning && !workers.cpus.includes(',')) {
    notes.push(
      `--workers 2 ran both workers on cpu ${workers.cpus}: the load generator needs the other core, so on this machine the case prices the cluster, not its scaling`,
    );
  }
  const headroom = computeHeadroom(cases);
  return {
    tool: 'adoption-store-kit bench',
    startedAt: run.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    environment: { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown' },
    settings,
    cases,
    headroom,
    serverCore: checkServerCore(cases),
    ratios: computeRatios(cases),
    projection: projectWorkers(cases),
    targets: checkTargets(cases, settings, headroom),
    notes,
  };
}
