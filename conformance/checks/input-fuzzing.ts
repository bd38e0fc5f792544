// The fuzzing phase of the input checks: fast-check properties over the whole space of createPet
// bodies (valid, and each property broken one way) and listPets queries (valid, honoured by the
// full profile, and each parameter out of range), each failure shrunk to its smallest request.
import fc from 'fast-check';
import type { Json, JsonObject } from '../../lib/openapi.ts';
import { bodyArbitrary, invalidTextArbitrary, valueArbitrary } from '../generate/arbitraries.ts';
import { outOfRange, successStatuses, type Case } from '../generate/cases.ts';
import { fuzz, type Judgement } from '../generate/fuzz.ts';
import { invalidVariants } from '../generate/schema.ts';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import type { OperationId } from '../../judge/contract.ts';
import type { AreaContext } from './area.ts';
import { judge, sendCase, type Markers } from './input-judge.ts';
import { isPetArray, status } from '../../judge/answers.ts';
import { acceptsExtra } from './support.ts';

function operation(ctx: AreaContext, id: OperationId) {
  return ctx.contract.operations.get(id)!;
}

function asObject(value: Json | undefined): JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/** Runs one property: its cases are sent, judged, shrunk on failure; seeds follow each other from the run's. */
type Property = <T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  toCase: (input: T) => Case,
  extra?: (input: T, ex: Exchange) => Judgement | undefined,
) => Promise<void>;

function propertyRunner(ctx: AreaContext, markers: Markers): Property {
  const { options } = ctx;
  let seed = options.seed;
  return async (name, arbitrary, toCase, extra) => {
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
}

/** createPet bodies: valid ones must be accepted; each broken one way must be refused (and is marked, to be looked for in the list). */
async function createBodies(ctx: AreaContext, run: Property): Promise<void> {
  const create = operation(ctx, 'createPet');
  const schema = create.requestSchema;
  if (!schema) return;
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
  if (mutations.length === 0) return;
  const properties = asObject(schema.should.properties);
  const name = Object.keys(properties).find((n) => asObject(properties[n]).type === 'string' && !asObject(properties[n]).enum);
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

/** listPets queries: valid ones answered (and, in the full profile, honoured); each parameter out of range refused or served within range. */
async function listQueries(ctx: AreaContext, run: Property): Promise<void> {
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
  if (broken.length === 0) return;
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

/** The fuzzed properties, in order (their seeds follow each other): valid and invalid bodies, valid and invalid queries. */
export async function fuzzing(ctx: AreaContext, markers: Markers): Promise<void> {
  const run = propertyRunner(ctx, markers);
  await createBodies(ctx, run);
  await listQueries(ctx, run);
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
