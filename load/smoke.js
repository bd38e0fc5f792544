// @ts-check
// Smoke test: a few VUs across all three operations, checking statuses, body shapes and rate-limit
// headers. It asks only what the specification states, so it runs against a Prism mock too; keep the
// offered rate (RATE x 4 requests/min) under the key's limit.

import { check, fail, sleep } from 'k6';
import http from 'k6/http';
import exec from 'k6/execution';
import {
  PET_STATUSES,
  headerValue,
  rateLimitHeaderProblems,
  readSnapshot,
  baseUrl,
  boolEnv,
  durationEnv,
  numberEnv,
  stringEnv,
  summaryPath,
  refusal,
  setupStop,
  segmentOf,
  isErrorBody,
  isPet,
  isPetList,
  jsonBody,
  summaryOutputs,
  smokeThresholds,
  k6Override,
  overrideFlags,
  createPet,
  getPet,
  listPets,
  probe,
} from './lib/bundle.cjs';

const target = { baseUrl: baseUrl(__ENV), apiKey: stringEnv(__ENV, 'API_KEY', 'test-pro-key'), http: http };
const VUS = numberEnv(__ENV, 'VUS', 2, { integer: true, min: 1, max: 50 });
const DURATION_S = durationEnv(__ENV, 'DURATION', '30s');
// Iterations per minute; each makes four requests with the key (and a VU's first one more without).
const RATE = numberEnv(__ENV, 'RATE', 30, { integer: true, min: 1 });
const P95_MS = numberEnv(__ENV, 'P95_MS', 500, { min: 1 });
// A mock (Prism) answers with the contract's examples: shapes, statuses and headers are right but
// it neither stores what was created nor filters. SHAPE_ONLY=1 skips the checks that need that.
const SHAPE_ONLY = boolEnv(__ENV, 'SHAPE_ONLY', false);

export const options = {
  scenarios: {
    smoke: {
      executor: 'constant-arrival-rate',
      exec: 'smoke',
      rate: RATE,
      timeUnit: '1m',
      duration: DURATION_S + 's',
      preAllocatedVUs: VUS,
      maxVUs: VUS,
    },
  },
  thresholds: smokeThresholds({ p95Ms: P95_MS }),
  setupTimeout: '30s',
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)'],
  // The key goes only to BASE_URL's origin: a redirect is judged, never followed (k6 follows 10 by default).
  maxRedirects: 0,
  // Only the bodies a check reads are kept (READ): k6 buffers a kept body whole, whatever its size.
  discardResponseBodies: true,
};

/** The checks of every scenario request read its body. */
const READ = { read: true };

/**
 * @param {import('./lib/requests.js').Answer} res
 */
function rateLimitHeadersOk(res) {
  return rateLimitHeaderProblems(readSnapshot({ status: res.status, headers: res.headers, receivedAtMs: Date.now() })).length === 0;
}

/**
 * @param {import('./lib/requests.js').Answer} res
 */
function isJson(res) {
  const type = headerValue(res.headers, 'Content-Type');
  return type !== undefined && type.toLowerCase().indexOf('application/json') === 0;
}

export function setup() {
  const segment = segmentOf(exec.test.options);
  try {
    probe(target);
  } catch (e) {
    return refusal(e instanceof Error ? e.message : String(e), { segment: segment });
  }
  return { segment: segment, startedMs: Date.now(), override: k6Override(exec.test.options) };
}

/** @param {{ refused?: string }} data */
export function smoke(data) {
  if (data.refused) exec.test.abort(data.refused);
  const tag = 'k6-smoke-' + exec.vu.idInTest + '-' + exec.vu.iterationInScenario;
  const status = PET_STATUSES[exec.vu.iterationInScenario % PET_STATUSES.length];

  const created = createPet(target, { name: tag, categoryId: 1, status: status }, READ);
  const pet = jsonBody(created.body);
  check(created, {
    'createPet 201': (r) => r.status === 201,
    'createPet body is a Pet': () => isPet(pet),
    'createPet rate-limit headers': rateLimitHeadersOk,
  });
  if (!SHAPE_ONLY) {
    check(pet, {
      'createPet returns what was sent': (p) => isPet(p) && /** @type {any} */ (p).name === tag && /** @type {any} */ (p).categoryId === 1,
    });
  }

  const list = listPets(target, { limit: 5, status: status }, READ);
  const pets = jsonBody(list.body);
  check(list, {
    'listPets 200': (r) => r.status === 200,
    'listPets JSON': isJson,
    'listPets body is a bare array of Pets': () => isPetList(pets),
    'listPets honours limit': () => isPetList(pets) && /** @type {unknown[]} */ (pets).length <= 5,
    'listPets rate-limit headers': rateLimitHeadersOk,
  });
  if (!SHAPE_ONLY) {
    check(pets, {
      'listPets honours status': (list) =>
        isPetList(list) &&
        /** @type {Array<{ status?: string }>} */ (list).every(function (p) {
          return p.status === status;
        }),
    });
  }

  if (isPet(pet)) {
    const got = getPet(target, /** @type {{ id: number }} */ (pet).id, READ);
    check(got, {
      'getPet 200': (r) => r.status === 200,
      'getPet body is a Pet': (r) => isPet(jsonBody(r.body)),
      'getPet rate-limit headers': rateLimitHeadersOk,
    });
    if (!SHAPE_ONLY) {
      check(got, {
        'getPet returns the created pet': (r) => {
          const body = jsonBody(r.body);
          return isPet(body) && /** @type {any} */ (body).id === /** @type {any} */ (pet).id && /** @type {any} */ (body).name === tag;
        },
      });
    }
  } else {
    fail('createPet returned no Pet, so getPet cannot be smoke-tested (status ' + created.status + ')');
  }

  const invalid = createPet(target, { categoryId: 'not-a-number' }, { read: true, expect: 400 });
  check(invalid, {
    'createPet without name 400': (r) => r.status === 400,
    'createPet 400 has an Error body': (r) => isErrorBody(jsonBody(r.body), 400),
  });

  // Once per VU: requests without a key may be limited per client address, and smoke must stay
  // under every limit.
  if (exec.vu.iterationInScenario === 0) {
    const anonymous = listPets({ baseUrl: target.baseUrl, apiKey: '', http: http }, { limit: 1 }, { read: true, expect: 401 });
    check(anonymous, {
      'listPets without a key 401': (r) => r.status === 401,
      '401 has an Error body': (r) => isErrorBody(jsonBody(r.body), 401),
    });
  }
}

/**
 * What k6 runs when its own --vus, --duration or --iterations replace the scenarios: the smoke
 * iteration, each VU waiting its share before the next, so that together they keep RATE iterations
 * a minute, under the key's limit, as the script's own scenario does.
 * @param {{ refused?: string }} data
 */
export default function (data) {
  if (exec.vu.iterationInScenario > 0) {
    const o = k6Override(exec.test.options);
    const waitS = ((o === null ? 1 : o.vus) * 60) / RATE;
    // Nothing is sent after --duration (k6 would wait for it, gracefulStop): the last wait ends with the run.
    const leftS = o === null || o.durationS === null ? Infinity : (exec.scenario.startTime + o.durationS * 1000 - Date.now()) / 1000;
    if (leftS <= waitS) {
      if (leftS > 0) sleep(leftS);
      return;
    }
    sleep(waitS);
  }
  smoke(data);
}

/** @param {any} data */
export function handleSummary(data) {
  const segment = data.setup_data && data.setup_data.segment ? data.setup_data.segment : segmentOf(null);
  /** @type {import('./lib/overrides.js').Override | null} */
  const override = data.setup_data && data.setup_data.override ? data.setup_data.override : null;
  const share = segment.share === 1 ? '' : ' (this generator: execution segment ' + segment.segment + ', ' + (segment.share * 100).toFixed(1) + '% of it)';
  return summaryOutputs(data, {
    title: 'smoke.js against ' + target.baseUrl,
    script: 'smoke',
    jsonPath: summaryPath(__ENV, 'smoke', segment.segment),
    stop: setupStop(data),
    report: [
      override === null
        ? 'offered ' + RATE + ' iterations/min (4 requests each) with ' + VUS + ' VU(s) for ' + DURATION_S + ' s' + share
        : "k6's " + overrideFlags(override) + ' ran instead of the scenario: at most ' + RATE + ' iterations/min (4 requests each) over its VUs' + share,
    ],
    extra: {
      baseUrl: target.baseUrl,
      vus: VUS,
      rate: RATE,
      durationS: DURATION_S,
      p95Ms: P95_MS,
      shapeOnly: SHAPE_ONLY,
      segment: segment,
      startedMs: data.setup_data ? data.setup_data.startedMs : null,
    },
  });
}
