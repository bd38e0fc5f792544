// Reads a V8 .cpuprofile (from `npm run bench -- --cpu-prof <dir>`) and prints where the time
// went: self time by package or project file, the top functions by self time, and inclusive time
// of the project's own functions; `--markdown` prints the owners as one table for bench/RESULTS.md.
// `npx tsx bench/profile.ts <file.cpuprofile> [--top N] [--markdown]`
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface Share {
  name: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Sampled time not spent idle; every percentage is of this. */
  busyMs: number;
  /** Self time by owner: an npm package, a project file, node's internals, GC, idle. */
  byOwner: Share[];
  selfTop: Share[];
  /** Time with a frame of this owner anywhere on the stack: what the component costs, callees included. */
  inclusiveByOwner: Share[];
  /** Inclusive time of functions in the project's own files (server/). */
  projectInclusive: Share[];
}

/** Who owns a frame: `hapi-pino`, `server/routes/pets.ts`, `node:internal`, `(garbage collector)`... */
export function ownerOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return 'node:internal';
  // Compiled files (dist/server/x.js) are named by their place in the project, like the sources.
  const project = /\/(server|bench|conformance|lib|spec)\/(.*)$/.exec(url.replace(/\/dist\//, '/'));
  if (project) return `${project[1]}/${project[2]}`;
  return url;
}

const label = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${ownerOf(f)}:${f.lineNumber + 1}`;

export function summarizeProfile(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfMs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  if (samples.length) {
    // A sample's time is the gap to the next sample.
    for (let i = 0; i < samples.length; i++) {
      const ms = (deltas[i + 1] ?? deltas[i] ?? 0) / 1000;
      selfMs.set(samples[i]!, (selfMs.get(samples[i]!) ?? 0) + ms);
    }
  } else {
    const hits = profile.nodes.reduce((n, x) => n + (x.hitCount ?? 0), 0);
    const per = hits ? (profile.endTime - profile.startTime) / 1000 / hits : 0;
    for (const n of profile.nodes) if (n.hitCount) selfMs.set(n.id, n.hitCount * per);
  }
  const totalMs = [...selfMs.values()].reduce((a, b) => a + b, 0);
  let idleMs = 0;
  for (const [id, ms] of selfMs) if (byId.get(id)!.callFrame.functionName === '(idle)') idleMs += ms;
  const busyMs = totalMs - idleMs;
  const share = (entries: Map<string, number>): Share[] =>
    [...entries].map(([name, ms]) => ({ name, ms, percent: busyMs ? (100 * ms) / busyMs : 0 })).sort((a, b) => b.ms - a.ms);

  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const ownersInclusive = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    const owner = ownerOf(node.callFrame);
    owners.set(owner, (owners.get(owner) ?? 0) + ms);
    functions.set(label(node.callFrame), (functions.get(label(node.callFrame)) ?? 0) + ms);
    const seen = new Set<string>();
    const seenOwners = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      const frameOwner = ownerOf(frame);
      if (!seenOwners.has(frameOwner)) {
        seenOwners.add(frameOwner);
        ownersInclusive.set(frameOwner, (ownersInclusive.get(frameOwner) ?? 0) + ms);
      }
      if (!frameOwner.startsWith('server/')) continue;
      const name = label(frame);
      if (seen.has(name)) continue; // recursion counts once
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + ms);
    }
  }
  return {
    totalMs,
    busyMs,
    byOwner: share(owners).slice(0, top),
    inclusiveByOwner: share(ownersInclusive)
      .filter((s) => !s.name.startsWith('('))
      .slice(0, top),
    selfTop: share(functions).slice(0, top),
    projectInclusive: share(inclusive).slice(0, top),
  };
}

export function renderProfile(summary: ProfileSummary): string {
  const block = (title: string, rows: Share[]) =>
    [title, ...rows.map((r) => `  ${r.percent.toFixed(1).padStart(5)}%  ${r.ms.toFixed(0).padStart(7)} ms  ${r.name}`)].join('\n');
  return (
    [
      `profile: ${summary.totalMs.toFixed(0)} ms sampled, ${summary.busyMs.toFixed(0)} ms busy (percentages are of busy time)`,
      block('self time by owner', summary.byOwner),
      block('inclusive time by owner (callees included; stacks overlap, so rows do not add up)', summary.inclusiveByOwner),
      block('top functions, self time', summary.selfTop),
      block('project functions (server/), inclusive time', summary.projectInclusive),
    ].join('\n\n') + '\n'
  );
}

/**
 * The owners as one Markdown table, self and inclusive time side by side, busiest first: the form
 * the results file keeps, so that a profile before and after a change can be compared row by row.
 */
export function renderProfileMarkdown(summary: ProfileSummary): string {
  const inclusive = new Map(summary.inclusiveByOwner.map((s) => [s.name, s]));
  const self = new Map(summary.byOwner.map((s) => [s.name, s]));
  const names = [...new Set([...summary.byOwner.map((s) => s.name), ...summary.inclusiveByOwner.map((s) => s.name)])];
  const key = (name: string) => Math.max(self.get(name)?.ms ?? 0, inclusive.get(name)?.ms ?? 0);
  names.sort((a, b) => key(b) - key(a));
  const cell = (s: Share | undefined) => (s ? `${s.percent.toFixed(1)}%` : '-');
  return (
    [
      `${summary.busyMs.toFixed(0)} ms busy of ${summary.totalMs.toFixed(0)} ms sampled; percentages are of busy time (inclusive: callees included, so rows overlap)`,
      '',
      '| owner | self | inclusive |',
      '|---|---:|---:|',
      ...names.map((name) => `| \`${name}\` | ${cell(self.get(name))} | ${cell(inclusive.get(name))} |`),
    ].join('\n') + '\n'
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
  const markdown = args.includes('--markdown');
  const files = args.filter((a, i) => !a.startsWith('--') && (topAt < 0 || i !== topAt + 1));
  if (files.length === 0) {
    process.stderr.write('usage: tsx bench/profile.ts <file.cpuprofile>... [--top N] [--markdown]\n');
    process.exit(2);
  }
  for (const file of files) {
    const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top);
    process.stdout.write(`== ${file}\n${markdown ? renderProfileMarkdown(summary) : renderProfile(summary)}\n`);
  }
}
