// Generated inputs for the described operations: the description's own examples, then every body
// property and parameter at its edges and one past each constraint (coverage), then fast-check
// examples of the whole space (fuzzing), each failure shrunk to its smallest request. Valid data must
// be accepted and invalid data refused with a 4xx, at the level schema.ts derives from where the
// constraint lives; a refused body must not have been stored.
import fc from 'fast-check';
import type { Json, JsonObject } from '../../lib/openapi.ts';
import type { CheckDef } from '../catalogue.ts';
import { bodyArbitrary, invalidTextArbitrary, valueArbitrary } from '../generate/arbitraries.ts';
import { bodyCases, exampleCases, outOfRange, parameterCases, successStatuses, type Case, type Expectation } from '../generate/cases.ts';
import { fuzz, type Judgement } from '../generate/fuzz.ts';
import { invalidVariants } from '../generate/schema.ts';
import { jsonBody, type Exchange } from '../http.ts';
import type { OperationId } from '../openapi.ts';
import { SECTION, type Area, type AreaContext } from './area.ts';
import { acceptsExtra, describeStatus, isPetArray, nextPage, send, status } from './support.ts';

const GENERATED = 'Endpoints; generated from spec/openapi.yaml';

const checks: readonly CheckDef[] = [
  {
    id: 'input.examples',
    level: 'must',
    profile: 'contract',
    section: GENERATED,
    title: "Each operation with the description's own examples (body and parameters) answers its documented success",
    needs: ['examples'],
  },
  {
    id: 'input.valid-accepted',
    level: 'must',
    profile: 'contract',
    section: GENERATED,
    title:
      'Valid requests that vary only what the specification bounds (every PetStatus, status left out, limit from 1 to 100, the examples) answer their documented success',
    needs: ['coverage'],
  },
  {
    id: 'input.decision-valid-accepted',
    level: 'should',
    profile: 'contract',
    section: `${GENERATED}; x-decision`,
    title:
      'Valid requests generated from the full schemas (names of 1 to 100 characters in any script, categoryId up to 2^53 − 1, extra properties) are accepted',
    needs: ['coverage'],
  },
  {
    id: 'input.invalid-rejected',
    level: 'must',
    profile: 'contract',
    section: GENERATED,
    title:
      'Requests past what the specification states (a required field missing, a wrong type, a status outside PetStatus, past int64, limit not an integer) are refused with a 4xx; a limit outside 1..100 is refused, or served clamped or ignored',
    needs: ['coverage'],
  },
  {
    id: 'input.invalid-400',
    level: 'should',
    profile: 'contract',
    section: `${SECTION.create}; ${GENERATED}`,
    title: 'Those requests are refused with 400 (a limit out of its range, which the must check lets a server clamp, included)',
    needs: ['coverage'],
  },
  {
    id: 'input.decision-invalid-rejected',
    level: 'should',
    profile: 'contract',
    section: `${GENERATED}; x-decision`,
    title:
      "Values past the reference server's decisions (an empty, blank, 101-character or control-character name, categoryId 0 or 2^53, an empty query value) are refused with 400",
    needs: ['coverage'],
  },
  {
    id: 'input.invalid-not-stored',
    level: 'must',
    profile: 'full',
    section: SECTION.create,
    title: 'A refused body stores nothing: no pet it named turns up in the list',
    needs: ['coverage'],
  },
  {
    id: 'input.list-honoured',
    level: 'must',
    profile: 'full',
    section: SECTION.list,
    title: 'For generated limit and status values, the list holds at most limit pets (20 without it), all with that status',
    needs: ['fuzzing'],
  },
];

/** The check a case's outcome belongs to. */
function checkOf(expect: Expectation): string {
  if (expect.valid) return expect.level === 'must' ? 'input.valid-accepted' : 'input.decision-valid-accepted';
  return expect.level === 'must' ? 'input.invalid-rejected' : 'input.decision-invalid-rejected';
}

/** What one answer says about one case: every check it decides, passed or not. */
function judge(expect: Expectation, ex: Exchange, purpose: string): Judgement {
  const code = status(ex);
  const check = checkOf(expect);
  if (code === undefined) return { problem: { check, message: `${purpose}: ${describeStatus(ex)}` }, passed: [] };
  if (expect.valid) {
    if (expect.success.includes(code)) return { passed: [check] };
    return { problem: { check, message: `${purpose}: answered ${code}, expected ${expect.success.join(' or ')}` }, passed: [] };
  }
  const refused = code >= 400 && code < 500;
  if (!refused && code >= 200 && code < 300 && expect.servedAtMost !== undefined) return servedInRange(expect.servedAtMost, ex, purpose, check);
  if (!refused)
    return {
      problem: { check, message: `${purpose}: answered ${code}, expected a 4xx refusal${code < 300 ? ' (the invalid request was served)' : ''}` },
      passed: [],
    };
  if (expect.level === 'should') {
    return code === 400 ? { passed: [check] } : { problem: { check, message: `${purpose}: refused with ${code}, expected 400` }, passed: [] };
  }
  if (expect.where === 'path' || code === 400) return { passed: expect.where === 'path' ? [check] : [check, 'input.invalid-400'] };
  return { problem: { check: 'input.invalid-400', message: `${purpose}: refused with ${code}, expected 400` }, passed: [check] };
}

/**
 * An out-of-range query value that was served: the specification leaves open whether it is refused,
 * clamped or ignored, so the must-level check holds only the page to what any of those would serve;
 * the reference server's refusal with 400 is asked at should level.
 */
function servedInRange(atMost: number, ex: Exchange, purpose: string, check: string): Judgement {
  const body = jsonBody(ex);
  const count = Array.isArray(body) ? body.length : undefined;
  if (count === undefined || count > atMost)
    return {
      problem: { check, message: `${purpose}: served ${count ?? 'a body that is not a list'} items; clamped or ignored it may serve at most ${atMost}` },
      passed: [],
    };
  return { problem: { check: 'input.invalid-400', message: `${purpose}: served (clamped or ignored) instead of refused with 400` }, passed: [check] };
}

/** Markers of invalid bodies sent, with the exchange that sent each. */
type Markers = Map<string, Exchange>;

async function sendCase(ctx: AreaContext, c: Case, phase: string): Promise<Exchange> {
  return send(ctx, {
    operationId: c.operationId,
    purpose: c.purpose,
    method: c.method,
    path: c.path,
    ...(c.query ? { query: c.query } : {}),
    ...(c.raw !== undefined ? { rawBody: c.raw } : c.json !== undefined ? { json: c.json } : {}),
    phase,
  });
}

async function runCases(ctx: AreaContext, cases: readonly Case[], phase: string, markers: Markers): Promise<void> {
  let left = 0;
  for (const c of cases) {
    if (!ctx.budget.take()) {
      left++;
      continue;
    }
    const ex = await sendCase(ctx, c, phase);
    if (c.marker) markers.set(c.marker, ex);
    const verdict = judge(c.expect, ex, c.purpose);
    const own = (id: string) => (c.examples ? 'input.examples' : id);
    for (const id of verdict.passed) ctx.ledger.pass(own(id));
    if (verdict.problem) ctx.ledger.fail(own(verdict.problem.check), verdict.problem.message, [ex]);
  }
  if (left > 0) ctx.progress({ type: 'note', text: `${phase}: ${left} cases left out (--max-requests ${ctx.options.maxRequests})` });
}

function operation(ctx: AreaContext, id: OperationId) {
  return ctx.contract.operations.get(id)!;
}

/** Every operation with a body or parameters the specification states. */
function coverageCases(ctx: AreaContext): Case[] {
  const cases: Case[] = [];
  for (const op of ctx.contract.operations.values()) cases.push(...bodyCases(op, ctx.token, { extra: acceptsExtra(ctx) }), ...parameterCases(op));
  // The specification's own constraints first: if the budget runs short, the decisions go.
  return [...cases.filter((c) => c.expect.level === 'must'), ...cases.filter((c) => c.expect.level === 'should')];
}

function asObject(value: Json | undefined): JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/** The fuzzed properties: valid and invalid bodies, valid and invalid queries. */
async function fuzzing(ctx: AreaContext, markers: Markers): Promise<void> {
  const { options } = ctx;
  let seed = options.seed;
  const run = async <T>(name: string, arbitrary: fc.Arbitrary<T>, toCase: (input: T) => Case, extra?: (input: T, ex: Exchange) => Judgement | undefined) => {
    const outcome = await fuzz({
      name,
      arbitrary,
      seed: seed++ % 2 ** 32,
      numRuns: options.maxExamples,
      budget: ctx.budget,
      send: async (input) => {
        const c = toCase(input);
        const ex = await sendCase(ctx, c, 'fuzzing');
        if (c.marker) markers.set(c.marker, ex);
        return ex;
      },
      judge: (input, ex) => {
        const c = toCase(input);
        const verdict = judge(c.expect, ex, c.purpose);
        // A server error fails the example too, so that it is shrunk (errors.no-server-error reports it).
        if (!verdict.problem && (status(ex) ?? 0) >= 500)
          return { problem: { check: 'errors.no-server-error', message: `${c.purpose}: answered ${status(ex)}` }, passed: [] };
        if (verdict.problem) return verdict;
        const more = extra?.(input, ex);
        return more ? { problem: more.problem, passed: [...verdict.passed, ...more.passed] } : verdict;
      },
      pass: (id) => ctx.ledger.pass(id),
    });
    const f = outcome.failure;
    if (f && f.problem.check !== 'errors.no-server-error')
      ctx.ledger.fail(f.problem.check, `${f.problem.message} (${name}: smallest of the failing inputs after ${f.shrinks} shrinks; seed ${f.seed})`, [
        f.exchange,
      ]);
    if (outcome.cut) ctx.progress({ type: 'note', text: `fuzzing ${name}: stopped at --max-requests ${options.maxRequests}` });
  };

  const create = operation(ctx, 'createPet');
  const schema = create.requestSchema;
  if (schema) {
    const success = successStatuses(create);
    await run('valid createPet bodies', bodyArbitrary(schema.should, schema.must, create.requestExamples, { extra: acceptsExtra(ctx) }), (g) => ({
      operationId: 'createPet',
      method: create.method,
      path: create.path,
      json: g.body,
      purpose: `create ${JSON.stringify(g.body)}`,
      expect: { valid: true, level: g.level, success },
    }));
    const mutations = invalidBodyMutations(schema.should, schema.must);
    const name = Object.keys(asObject(schema.should.properties)).find(
      (n) => asObject(asObject(schema.should.properties)[n]).type === 'string' && !asObject(asObject(schema.should.properties)[n]).enum,
    );
    if (mutations.length > 0) {
      let n = 0;
      const markersOf = new Map<unknown, string>();
      await run(
        'invalid createPet bodies',
        fc.tuple(bodyArbitrary(schema.should, schema.must, create.requestExamples, { extra: false }), fc.constantFrom(...mutations)),
        (input) => {
          const [g, m] = input;
          let marker = markersOf.get(input);
          if (!marker && name && m.property !== name) markersOf.set(input, (marker = `neg-${ctx.token}-f${++n}`));
          const body: Record<string, Json> = { ...g.body, ...(marker && name ? { [name]: marker } : {}) };
          if (m.value === undefined) delete body[m.property];
          else body[m.property] = m.value;
          return {
            operationId: 'createPet',
            method: create.method,
            path: create.path,
            json: body,
            purpose: `create with ${m.property} ${m.label}: ${JSON.stringify(body)}`,
            expect: { valid: false, level: m.level, where: 'body' },
            ...(marker ? { marker } : {}),
          };
        },
      );
    }
  }

  const list = operation(ctx, 'listPets');
  const query = list.parameters.filter((p) => p.in === 'query' && !p.decision);
  const model = Object.fromEntries(query.map((p) => [p.name, valueArbitrary(p.schema.should, p.schema.must)]));
  const listSuccess = successStatuses(list);
  const queryOf = (values: Record<string, Json>) => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)]));
  await run(
    'valid listPets queries',
    fc.record(model, { requiredKeys: [] }),
    (values) => ({
      operationId: 'listPets',
      method: list.method,
      path: list.path,
      query: queryOf(values as Record<string, Json>),
      purpose: `list with ${JSON.stringify(values)}`,
      expect: { valid: true, level: 'must', success: listSuccess },
    }),
    ctx.options.profile === 'full' ? (values, ex) => honoured(ctx, values as Record<string, Json>, ex) : undefined,
  );
  const broken = query.map((p) => ({ p, arb: invalidTextArbitrary(p.schema.should, p.schema.must) })).filter((x) => x.arb !== undefined);
  if (broken.length > 0) {
    await run(
      'invalid listPets queries',
      fc.oneof(...broken.map(({ p, arb }) => arb!.map((bad) => ({ name: p.name, atMost: outOfRange(p.schema.should, bad), ...bad })))),
      (bad) => ({
        operationId: 'listPets',
        method: list.method,
        path: list.path,
        query: { [bad.name]: bad.value },
        purpose: `list with ${bad.name}=${JSON.stringify(bad.value)}`,
        expect: { valid: false, level: bad.level, where: 'query', ...(bad.atMost !== undefined ? { servedAtMost: bad.atMost } : {}) },
      }),
    );
  }
}

interface Mutation {
  property: string;
  /** undefined: the property is left out. */
  value: Json | undefined;
  label: string;
  level: 'must' | 'should';
}

function invalidBodyMutations(should: JsonObject, must: JsonObject): Mutation[] {
  const properties = asObject(should.properties);
  const mustProperties = asObject(must.properties);
  const out: Mutation[] = [];
  for (const [name, schema] of Object.entries(properties)) {
    for (const v of invalidVariants(asObject(schema), asObject(mustProperties[name]), 'json')) {
      if (typeof v.value === 'number' && !Number.isSafeInteger(v.value) && Number.isInteger(v.value)) continue;
      out.push({ property: name, value: v.value, label: v.label, level: v.level });
    }
  }
  const mustRequired = new Set(Array.isArray(must.required) ? must.required.map(String) : []);
  for (const name of Array.isArray(should.required) ? should.required.map(String) : [])
    out.push({ property: name, value: undefined, label: 'left out (required)', level: mustRequired.has(name) ? 'must' : 'should' });
  return out;
}

/** The list honours the generated limit and status. */
function honoured(ctx: AreaContext, values: Record<string, Json>, ex: Exchange): Judgement {
  const body = jsonBody(ex);
  if (!isPetArray(body)) return { passed: [] };
  const limit = typeof values.limit === 'number' ? values.limit : ctx.contract.listLimit.default;
  const wrong = values.status === undefined ? [] : body.filter((p) => p.status !== values.status);
  if (body.length > limit)
    return { problem: { check: 'input.list-honoured', message: `list with ${JSON.stringify(values)} returned ${body.length} pets` }, passed: [] };
  if (wrong.length > 0)
    return {
      problem: {
        check: 'input.list-honoured',
        message: `list with ${JSON.stringify(values)} returned pets with status ${[...new Set(wrong.map((p) => String(p.status)))].join(', ')}`,
      },
      passed: [],
    };
  return { passed: ['input.list-honoured'] };
}

function refusedBody(ex: Exchange): boolean {
  const code = status(ex);
  return code !== undefined && code >= 400 && code < 500;
}

/** Walks the whole list for pets named by a refused body. */
async function storedNothing(ctx: AreaContext, markers: Markers): Promise<void> {
  if (ctx.options.profile !== 'full') return;
  if (![...markers.values()].some(refusedBody)) return ctx.ledger.notRun('input.invalid-not-stored', 'no marked body was refused');
  const limit = ctx.contract.listLimit.maximum;
  let path = '/pets';
  let query: Record<string, string | number> | undefined = { limit };
  const seen: Exchange[] = [];
  for (let page = 0; page < 50; page++) {
    if (!ctx.budget.take())
      return ctx.ledger.notRun('input.invalid-not-stored', `--max-requests ${ctx.options.maxRequests} reached before the list was walked`);
    const ex = await send(ctx, {
      operationId: 'listPets',
      purpose: 'walk the list for pets a refused body named',
      method: 'GET',
      path,
      ...(query ? { query } : {}),
      phase: 'coverage',
    });
    seen.push(ex);
    const body = jsonBody(ex);
    if (status(ex) !== 200 || !isPetArray(body)) return ctx.ledger.notRun('input.invalid-not-stored', `the list answered ${describeStatus(ex)}`);
    for (const pet of body) {
      const sent = typeof pet.name === 'string' ? markers.get(pet.name) : undefined;
      // A body the target accepted is the other input checks' to judge: this one is about refusals.
      if (!sent || !refusedBody(sent)) continue;
      ctx.ledger.fail(
        'input.invalid-not-stored',
        `${sent.purpose} was refused with ${status(sent)}, yet pet ${String(pet.id)} named ${JSON.stringify(pet.name)} is in the list`,
        [sent, ex],
      );
    }
    const next = nextPage(ctx, ex);
    if ('none' in next) {
      if (body.length >= limit && next.none.startsWith('no Link'))
        return ctx.ledger.notRun('input.invalid-not-stored', 'the list is longer than one page and announces no next page');
      if (!ctx.ledger.hasFailed('input.invalid-not-stored')) ctx.ledger.pass('input.invalid-not-stored');
      return;
    }
    path = next.url;
    query = undefined;
  }
}

const markersOf = (ctx: AreaContext): Markers => (ctx.facts.markers ??= new Map());

export const inputArea: Area = {
  name: 'input',
  checks,
  phases: {
    examples: (ctx) => runCases(ctx, exampleCases(ctx.contract), 'examples', markersOf(ctx)),
    coverage: async (ctx) => {
      await runCases(ctx, coverageCases(ctx), 'coverage', markersOf(ctx));
      if (!ctx.options.phases.includes('fuzzing')) await storedNothing(ctx, markersOf(ctx));
    },
    fuzzing: async (ctx) => {
      await fuzzing(ctx, markersOf(ctx));
      await storedNothing(ctx, markersOf(ctx));
    },
  },
};
