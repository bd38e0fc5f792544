// The proxy's live view (--ui): the TrafficJudge seen as a LiveSource of lib/live, served by the
// proxy itself at LIVE_PATH behind a view token, to this machine only unless asked. The judge decides
// everything; this counts each key's exchanges and findings as they are told (which keys to show),
// and reads the report of a key only when a watcher is shown it.
import type { Clock } from '../judge/index.ts';
import { brokenObligations } from '../judge/client-obligations.ts';
import type { LiveFeedOptions } from '../lib/live/feed.ts';
import { KeyRanks } from '../lib/live/ranks.ts';
import { boundedFindings, windowState, type LiveFinding, type LiveKey, type LiveSource } from '../lib/live/source.ts';
import { createLiveView, type LiveView } from '../lib/live/view.ts';
import type { KeyReport } from './findings.ts';
import { DEFAULT_LIMITS } from './judge-limits.ts';

/** Answered by the proxy, never forwarded; no path of the API can be there (proxy/README.md, Decisions). */
export const LIVE_PATH = '/__adoption-kit/live';

type JudgedKey = Pick<KeyReport, 'key' | 'requests' | 'refused' | 'server' | 'client' | 'timeline'>;

/** What the live view needs of the judge (TrafficJudge has it): never the report of every key. */
export interface LiveJudge {
  subscribe(listener: (label: string) => void): () => void;
  keyReport(label: string): JudgedKey | undefined;
  /** A judge in another thread: whether the key's report is on its way (undefined then does not mean gone). */
  pending?(label: string): boolean;
  /** A judge in another thread: `listener` hears a key whose report came (the view renders it again). */
  refreshed?(listener: (label: string) => void): () => void;
}

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

/** The judge as a source, and `found` to be told of each finding by its key's label (the proxy's onFinding). */
export type ProxyLiveSource = LiveSource & { found(label: string): void };

/**
 * From the moment it is made, it counts each key's exchanges as the judge tells them; at most
 * `maxKeys` (the judge's own bound), the least recently active forgotten first, as the judge does.
 */
export function proxyLiveSource(judge: LiveJudge, clock: Clock = { now: () => Date.now() }, maxKeys = DEFAULT_LIMITS.maxKeys): ProxyLiveSource {
  const ranks = new KeyRanks(maxKeys);
  judge.subscribe((label) => ranks.seen(label));
  return {
    now: () => clock.now(),
    list: (query) => ranks.list(query),
    key: (label) => {
      const report = judge.keyReport(label);
      if (!report) {
        if (!judge.pending?.(label)) ranks.forget(label);
        return undefined;
      }
      const key = liveKeyOf(report, clock.now());
      ranks.found(label, key.findings.length + key.findingsDropped);
      return key;
    },
    subscribe: (listener) => {
      const exchanges = judge.subscribe(listener);
      const reports = judge.refreshed?.(listener);
      return () => {
        exchanges();
        reports?.();
      };
    },
    found: (label) => ranks.found(label),
  };
}

export interface ProxyLiveViewOptions extends Pick<LiveFeedOptions, 'maxWatchers' | 'maxShown' | 'drainTimeoutMs' | 'timer'> {
  /** The proxy's clock: the one the judge's timelines are on. */
  clock?: Clock;
  /** The target, named in the page's title. */
  target?: string;
  /** The feed needs it as a bearer credential (the page asks for it, or reads it from #token=). */
  token?: string;
  /** Answer peers that are not on this machine too. */
  remote?: boolean;
  /** The judge's bound on keys (--max-keys). */
  maxKeys?: number;
}

export type ProxyLiveView = LiveView & { found(label: string): void };

/** The live view of a proxy's judge: route every request through `handle` first (it answers only LIVE_PATH and below). */
export function createProxyLiveView(judge: LiveJudge, options: ProxyLiveViewOptions = {}): ProxyLiveView {
  const { clock, target, token, remote, maxKeys, ...feed } = options;
  const source = proxyLiveSource(judge, clock, maxKeys);
  const view = createLiveView({
    ...feed,
    source,
    basePath: LIVE_PATH,
    title: target ? `Live traffic through the proxy to ${shown(target)}` : 'Live traffic through the proxy',
    ...(token !== undefined ? { token, tokenName: 'view token' } : {}),
    ...(remote ? { remote } : {}),
  });
  return { handle: view.handle, close: view.close, feed: view.feed, found: source.found };
}

/** The target without credentials or query, as a title may show it. */
function shown(target: string): string {
  const url = new URL(target);
  url.username = url.password = url.search = '';
  return url.href.replace(/\/$/, '');
}
