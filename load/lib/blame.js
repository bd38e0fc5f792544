// @ts-check
// Who kept a step from its rate when the target answered within the objectives: the server, whose
// request time grew with the rate, or the generator (CPU, VUs, time to start iterations). knee.js
// asks it for every step that missed its rate.

/**
 * @typedef {import('./step-types.js').StepStats} StepStats
 * @typedef {import('./step-types.js').Criteria} Criteria
 * @typedef {import('../../spec/rules/capacity-svg.js').Bound} Bound
 * @typedef {import('./step-types.js').Cause} Cause
 * @typedef {{ rate: number, ms: number }} Baseline the fastest mean request time of the steps run so far, and the step's rate
 */

/**
 * A step's request time at least this many times the fastest lower step's: the server slowed down
 * with the rate (why 3: load/README.md, Decisions).
 */
export const SLOWDOWN = 3;

/**
 * The fastest request time among the steps run so far: the server's time before the rate loaded it.
 * @param {Baseline | null} base
 * @param {number} rate
 * @param {StepStats | null} s
 * @returns {Baseline | null}
 */
export function fasterBase(base, rate, s) {
  if (s === null || s.count === 0 || !(s.requestAvg !== undefined && s.requestAvg > 0)) return base;
  return base === null || s.requestAvg < base.ms ? { rate: rate, ms: s.requestAvg } : base;
}

/**
 * How many times the fastest lower step's request time a step's took; null when either is unknown.
 * @param {StepStats} s
 * @param {Baseline | null} base
 */
export function slowdownOf(s, base) {
  if (base === null || !(s.requestAvg !== undefined && s.requestAvg > 0)) return null;
  return s.requestAvg / base.ms;
}

/**
 * Who kept a step from its rate when the target answered within the objectives. The server's growth
 * is weighed first: its slower answers keep VUs busy, so busy VUs alone do not blame the generator.
 * @param {StepStats} s
 * @param {Criteria} criteria
 * @param {Baseline | null} base
 * @returns {{ bound: Bound, cause: Cause, why: string }}
 */
export function shortfallOf(s, criteria, base) {
  const growth = slowdownOf(s, base);
  if (growth !== null && base !== null && growth >= SLOWDOWN) {
    return {
      bound: 'server',
      cause: 'slowdown',
      why:
        'the server slowed down: its requests took ' +
        /** @type {number} */ (s.requestAvg).toFixed(1) +
        ' ms, x' +
        growth.toFixed(1) +
        ' the ' +
        base.ms.toFixed(1) +
        ' ms at ' +
        base.rate +
        '/s, and kept the VUs waiting' +
        (criteria.maxVUs !== undefined && s.vusMax !== undefined && s.vusMax >= criteria.maxVUs ? ' (all ' + criteria.maxVUs + ' busy)' : ''),
    };
  }
  const steady =
    growth === null || base === null
      ? ''
      : ' while its requests stayed at ' + /** @type {number} */ (s.requestAvg).toFixed(1) + ' ms (x' + growth.toFixed(1) + ' since ' + base.rate + '/s)';
  if (s.iterationAvg !== undefined && s.requestAvg !== undefined) {
    const around = s.iterationAvg - s.requestAvg;
    if (around > Math.max(1, s.requestAvg)) {
      return {
        bound: 'generator',
        cause: 'cpu',
        why:
          "the generator's ceiling: k6 spent " +
          around.toFixed(1) +
          ' ms around each ' +
          s.requestAvg.toFixed(1) +
          ' ms request, so k6 itself could not keep up (add generators)' +
          steady,
      };
    }
  }
  if (criteria.maxVUs !== undefined && s.vusMax !== undefined && s.vusMax >= criteria.maxVUs) {
    return {
      bound: 'generator',
      cause: 'vus',
      why: "the generator's ceiling: all " + criteria.maxVUs + ' VUs busy (raise MAX_VUS or add generators)' + steady,
    };
  }
  if (growth !== null || s.iterationAvg === undefined || s.requestAvg === undefined) {
    return { bound: 'generator', cause: 'dropped', why: "the generator's ceiling: iterations dropped with VUs to spare" + steady };
  }
  return {
    bound: 'server',
    cause: 'slowdown',
    why: 'the target slowed down: its ' + s.requestAvg.toFixed(1) + ' ms requests kept the VUs waiting (iterations ' + s.iterationAvg.toFixed(1) + ' ms)',
  };
}
