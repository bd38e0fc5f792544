// Whether points in time can be placed so that every "not after" (≤) and "before" (<) between them
// holds, each point within its own interval: difference constraints with zero weights. The least
// placement pushes each point's lower bound along the edges; it fails where a bound passes the point's
// interval, or where a cycle holds a strict edge (a point before itself). Each contradiction is
// returned with the fewest edges that force it, once per point, and the edge that found it is then set
// aside, so the next contradiction found is another one and not the first one seen again.

export interface Interval {
  lo: number;
  /** Infinity when the operation may take effect at any later time. */
  hi: number;
}

export interface Edge<T> {
  /** `to` is not before `from` (strict: `to` is after `from`). */
  from: number;
  to: number;
  strict: boolean;
  label: T;
}

export type Contradiction<T> =
  /** The chain starts at a point's own lower bound and pushes `node` past its upper bound. */
  | { kind: 'bound'; node: number; chain: Edge<T>[] }
  /** The chain leads from a point back to itself through a strict edge. */
  | { kind: 'cycle'; chain: Edge<T>[] };

interface Lower {
  at: number;
  strict: boolean;
}

const above = (a: Lower, b: Lower) => a.at > b.at || (a.at === b.at && a.strict && !b.strict);

/** Every contradiction between the intervals and the edges (none when some placement satisfies all). */
export function contradictions<T>(points: readonly Interval[], edges: readonly Edge<T>[], maxCycles = 64): Contradiction<T>[] {
  const found: Contradiction<T>[] = [];
  const out: Edge<T>[][] = points.map(() => []);
  for (const e of edges) {
    if (e.from !== e.to) out[e.from]!.push(e);
    else if (e.strict) found.push({ kind: 'cycle', chain: [e] });
  }
  const into: Edge<T>[][] = points.map(() => []);
  for (const list of out) for (const e of list) into[e.to]!.push(e);
  const removed = new Set<Edge<T>>();
  const overrun = new Set<number>();
  for (const cycle of strictCycles(points.length, out, removed, maxCycles)) found.push({ kind: 'cycle', chain: cycle });

  const lower: Lower[] = points.map((p) => ({ at: p.lo, strict: false }));
  const via: Array<Edge<T> | undefined> = points.map(() => undefined);
  const queue: number[] = points.map((_, i) => i);
  const queued = points.map(() => true);
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head]!;
    queued[u] = false;
    for (const e of out[u]!) {
      if (removed.has(e)) continue;
      const candidate = { at: lower[u]!.at, strict: lower[u]!.strict || e.strict };
      if (!above(candidate, lower[e.to]!)) continue;
      const hi = points[e.to]!.hi;
      if (candidate.at > hi || (candidate.at === hi && candidate.strict)) {
        // One contradiction per point: another chain into it is the same point out of its interval again.
        if (!overrun.has(e.to)) found.push({ kind: 'bound', node: e.to, chain: shortestForcing(e.to, points, into, removed) ?? [...chainTo(u, via), e] });
        overrun.add(e.to);
        removed.add(e);
        continue;
      }
      lower[e.to] = candidate;
      via[e.to] = e;
      if (!queued[e.to]) {
        queued[e.to] = true;
        queue.push(e.to);
      }
    }
  }
  return found;
}

/**
 * The fewest edges from a point whose own lower bound, carried along them, passes `node`'s upper
 * bound: a search back from `node`, each state a point and whether a strict edge lies behind it.
 */
function shortestForcing<T>(node: number, points: readonly Interval[], into: Edge<T>[][], removed: Set<Edge<T>>): Edge<T>[] | undefined {
  const hi = points[node]!.hi;
  type State = { at: number; strict: boolean; path: Edge<T>[] };
  const seen = new Set<string>([`${node}:false`]);
  const queue: State[] = [{ at: node, strict: false, path: [] }];
  for (let head = 0; head < queue.length; head++) {
    const { at, strict, path } = queue[head]!;
    const lo = points[at]!.lo;
    if (path.length > 0 && (lo > hi || (lo === hi && strict))) return path;
    for (const e of into[at]!) {
      if (removed.has(e)) continue;
      const next = { at: e.from, strict: strict || e.strict, path: [e, ...path] };
      const key = `${next.at}:${next.strict}`;
      if (seen.has(key)) continue;
      seen.add(key);
      queue.push(next);
    }
  }
  return undefined;
}

function chainTo<T>(node: number, via: ReadonlyArray<Edge<T> | undefined>): Edge<T>[] {
  const chain: Edge<T>[] = [];
  const seen = new Set<number>([node]);
  for (let e = via[node]; e && !seen.has(e.from); e = via[e.from]) {
    chain.unshift(e);
    seen.add(e.from);
  }
  return chain;
}

/** Cycles through a strict edge, shortest first per edge; each one's strict edge is set aside (added to `removed`). */
function strictCycles<T>(size: number, out: Edge<T>[][], removed: Set<Edge<T>>, max: number): Edge<T>[][] {
  const cycles: Edge<T>[][] = [];
  for (;;) {
    const component = components(size, out, removed);
    let strict: Edge<T> | undefined;
    for (const edges of out) {
      strict = edges.find((e) => e.strict && !removed.has(e) && component[e.from] === component[e.to]);
      if (strict) break;
    }
    if (!strict || cycles.length >= max) return cycles;
    const back = shortestPath(strict.to, strict.from, out, removed, (n) => component[n] === component[strict.from]);
    removed.add(strict);
    if (back) cycles.push([strict, ...back]);
  }
}

function shortestPath<T>(from: number, to: number, out: Edge<T>[][], removed: Set<Edge<T>>, inside: (n: number) => boolean): Edge<T>[] | undefined {
  const via = new Map<number, Edge<T> | undefined>([[from, undefined]]);
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    const u = queue[i]!;
    if (u === to) {
      const path: Edge<T>[] = [];
      for (let e = via.get(u); e; e = via.get(e.from)) path.unshift(e);
      return path;
    }
    for (const e of out[u]!) {
      if (removed.has(e) || via.has(e.to) || !inside(e.to)) continue;
      via.set(e.to, e);
      queue.push(e.to);
    }
  }
  return undefined;
}

/** Strongly connected components (Tarjan's, iterative): each node's component number. */
function components<T>(size: number, out: Edge<T>[][], removed: Set<Edge<T>>): number[] {
  const index = new Array<number>(size).fill(-1);
  const low = new Array<number>(size).fill(0);
  const component = new Array<number>(size).fill(-1);
  const onStack = new Array<boolean>(size).fill(false);
  const stack: number[] = [];
  let next = 0;
  let count = 0;
  for (let root = 0; root < size; root++) {
    if (index[root] !== -1) continue;
    const frames: Array<{ node: number; edge: number }> = [{ node: root, edge: 0 }];
    index[root] = low[root] = next++;
    stack.push(root);
    onStack[root] = true;
    while (frames.length > 0) {
      const frame = frames.at(-1)!;
      const edges = out[frame.node]!;
      if (frame.edge < edges.length) {
        const e = edges[frame.edge++]!;
        if (removed.has(e)) continue;
        const w = e.to;
        if (index[w] === -1) {
          index[w] = low[w] = next++;
          stack.push(w);
          onStack[w] = true;
          frames.push({ node: w, edge: 0 });
        } else if (onStack[w]) low[frame.node] = Math.min(low[frame.node]!, index[w]!);
        continue;
      }
      frames.pop();
      const parent = frames.at(-1);
      if (parent) low[parent.node] = Math.min(low[parent.node]!, low[frame.node]!);
      if (low[frame.node] === index[frame.node]) {
        for (;;) {
          const w = stack.pop()!;
          onStack[w] = false;
          component[w] = count;
          if (w === frame.node) break;
        }
        count++;
      }
    }
  }
  return component;
}
