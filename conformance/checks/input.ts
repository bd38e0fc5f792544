// Generated inputs for the described operations (conformance/README.md, Generated inputs). This file
// is the area: its checks, the examples and coverage phases and the stored-nothing walk;
// input-judge.ts judges one answer, input-fuzzing.ts is the fuzzing phase.
import { bodyCases, exampleCases, parameterCases, type Case } from '../generate/cases.ts';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import { type Area, type AreaContext } from './area.ts';
import { SECTION } from '../../judge/check-def.ts';
import { fuzzing } from './input-fuzzing.ts';
import { judge, sendCase, type Markers } from './input-judge.ts';
import { describeStatus, isPetArray, status } from '../../judge/answers.ts';
import { acceptsExtra, nextPage, send } from './support.ts';

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

/** Every operation with a body or parameters the specification states. */
function coverageCases(ctx: AreaContext): Case[] {
  const cases: Case[] = [];
  for (const op of ctx.contract.operations.values()) cases.push(...bodyCases(op, ctx.token, { extra: acceptsExtra(ctx) }), ...parameterCases(op));
  // The specification's own constraints first: if the budget runs short, the decisions go.
  return [...cases.filter((c) => c.expect.level === 'must'), ...cases.filter((c) => c.expect.level === 'should')];
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
    if (status(ex) !== 200 || !isPetArray(body)) return ctx.ledger.notRun('input.invalid-not-stored', `the list answered ${describeStatus(ex)}`, [ex]);
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
