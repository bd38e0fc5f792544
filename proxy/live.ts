// The proxy's live view (--ui): the TrafficJudge seen as a LiveSource of lib/live, served by the
// proxy itself at LIVE_PATH. The judge decides everything; this only reads its per-key report after
// each judged exchange and says what the page shows of it.
import type { Clock } from '../conformance/index.ts';
import { brokenObligations } from '../lib/client-obligations.ts';
import { boundedFindings, windowState, type LiveFinding, type LiveKey, type LiveSource } from '../lib/live/source.ts';
import { createLiveView, type LiveView } from '../lib/live/view.ts';
import type { KeyReport } from './judge.ts';

/** Answered by the proxy, never forwarded; no path of the API can be there (proxy/README.md, Decisions). */
export const LIVE_PATH = '/__adoption-kit/live';

/** What the live view needs of the judge (TrafficJudge has it). */
export interface LiveJudge {
  subscribe(listener: (label: string) => void): () => void;
  keyReport(label: string): Pick<KeyReport, 'key' | 'requests' | 'refused' | 'server' | 'client' | 'timeline'> | undefined;
  report(): Array<Pick<KeyReport, 'key' | 'requests' | 'refused' | 'server' | 'client' | 'timeline'>>;
}

type JudgedKey = ReturnType<LiveJudge['report']>[number];

/** The server's failed and warned checks (each failure kept), then the client's broken obligations. */
function findingsOf(report: JudgedKey): LiveFinding[] {
  const server = report.server
    .filter((r) => r.outcome === 'failed' || r.outcome === 'warned')
    .flatMap((r) =>
      (r.failures.length > 0 ? r.failures.map((f) => f.message) : [r.title]).map((message): LiveFinding => ({
        side: 'server',
        id: r.id,
        level: r.level,
        message,
      })),
    );
  const client = report.client ? brokenObligations(report.client).map((b): LiveFinding => ({ side: 'client', ...b })) : [];
  return [...server, ...client];
}

/** A key as the page shows it, from what the judge reports of it now. */
export function liveKeyOf(report: JudgedKey, nowMs: number): LiveKey {
  const { client } = report;
  return {
    key: report.key,
    requests: report.requests,
    refused: report.refused,
    ...windowState(report.timeline.points, nowMs),
    ...boundedFindings(findingsOf(report)),
    ...(client ? { client: { ready: client.ready, warnings: client.warnings } } : {}),
    timeline: report.timeline,
  };
}

export function proxyLiveSource(judge: LiveJudge, clock: Clock = { now: () => Date.now() }): LiveSource {
  return {
    now: () => clock.now(),
    keys: () => judge.report().map((r) => liveKeyOf(r, clock.now())),
    key: (label) => {
      const report = judge.keyReport(label);
      return report ? liveKeyOf(report, clock.now()) : undefined;
    },
    subscribe: (listener) => judge.subscribe(listener),
  };
}

export interface ProxyLiveViewOptions {
  /** The proxy's clock: the one the judge's timelines are on. */
  clock?: Clock;
  /** The target, named in the page's title. */
  target?: string;
}

/** The live view of a proxy's judge: route every request through `handle` first (it answers only LIVE_PATH and below). */
export function createProxyLiveView(judge: LiveJudge, options: ProxyLiveViewOptions = {}): LiveView {
  return createLiveView({
    source: proxyLiveSource(judge, options.clock),
    basePath: LIVE_PATH,
    title: options.target ? `Live traffic through the proxy to ${shown(options.target)}` : 'Live traffic through the proxy',
  });
}

/** The target without credentials or query, as a title may show it. */
function shown(target: string): string {
  const url = new URL(target);
  url.username = url.password = url.search = '';
  return url.href.replace(/\/$/, '');
}
