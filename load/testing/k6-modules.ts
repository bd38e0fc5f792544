// The k6 modules the scripts import (k6, k6/http, k6/metrics, k6/execution) as small ES modules that
// call into the K6Shim of the run (globalThis.__k6shim), and the loader hook that maps their names
// to them. The state and behaviour are in k6-shim.ts.
import { register } from 'node:module';

const K6_MODULES: Record<string, string> = {
  k6: `const s = () => globalThis.__k6shim;
export function check(v, sets, tags) { return s().check(v, sets, tags); }
export function fail(m) { return s().fail(m); }
export function sleep(x) { return s().sleep(x); }
export function group(n, f) { return s().group(n, f); }
export default { check, fail, sleep, group };`,
  'k6/http': `const s = () => globalThis.__k6shim;
export function get(u, p) { return s().request('GET', u, null, p); }
export function post(u, b, p) { return s().request('POST', u, b, p); }
export function put(u, b, p) { return s().request('PUT', u, b, p); }
export function del(u, b, p) { return s().request('DELETE', u, b, p); }
export function request(m, u, b, p) { return s().request(m, u, b, p); }
export function batch(r) { return s().batch(r); }
export function expectedStatuses(...a) { return s().expectedStatuses(a); }
export function setResponseCallback(c) { return s().setResponseCallback(c); }
export default { get, post, put, del, request, batch, expectedStatuses, setResponseCallback };`,
  'k6/metrics': `const s = () => globalThis.__k6shim;
class Metric { constructor(type, name, isTime) { this.name = name; s().declare(name, type, !!isTime); } add(v, tags) { s().add(this.name, Number(v), tags || {}); } }
export class Counter extends Metric { constructor(n, t) { super('counter', n, t); } }
export class Rate extends Metric { constructor(n, t) { super('rate', n, t); } }
export class Trend extends Metric { constructor(n, t) { super('trend', n, t); } }
export class Gauge extends Metric { constructor(n, t) { super('gauge', n, t); } }
export default { Counter, Rate, Trend, Gauge };`,
  'k6/execution': `const s = () => globalThis.__k6shim;
export default {
  get scenario() { return s().execScenario(); },
  get vu() { return s().execVu(); },
  get instance() { return s().execInstance(); },
  get test() { return { abort: (m) => s().abort(m), get options() { return s().execOptions(); } }; },
};`,
};

let registered = false;
/** Maps the k6 module names to the stand-ins above, for every import that follows. */
export function registerK6Shim(): void {
  if (registered) return;
  registered = true;
  const table = JSON.stringify(Object.fromEntries(Object.entries(K6_MODULES).map(([k, v]) => [k, 'data:text/javascript,' + encodeURIComponent(v)])));
  // The generated bundle k6 loads (load/lib/bundle.cjs) is replaced by the ES modules it is made
  // from (load/lib/bundle.js): a test sees an edit of load/lib or spec/rules before it is bundled.
  // Real k6 runs the bundle (load/k6.test.ts); scripts/generate.test.ts keeps it current.
  const hooks = `const table = ${table};
export async function resolve(specifier, context, next) {
  if (Object.prototype.hasOwnProperty.call(table, specifier)) return { url: table[specifier], shortCircuit: true };
  if (/(^|\\/)bundle\\.cjs$/.test(specifier) && context.parentURL) {
    return { url: new URL(specifier.replace(/\\.cjs$/, '.js'), context.parentURL).href, shortCircuit: true };
  }
  return next(specifier, context);
}`;
  register('data:text/javascript,' + encodeURIComponent(hooks));
}
