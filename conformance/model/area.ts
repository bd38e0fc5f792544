// The model phase (conformance/README.md, The model phase): a random program of the contract's
// operations sent by several clients at once, across keys, their spellings and credentials that
// carry none; the whole history judged by the judging core; a failure shrunk, sent again to see it
// fail for real, saved for `--replay`, and shown as a short table.
import { JUDGE_CHECKS } from '../../judge/checks/index.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import { SECTION } from '../../judge/check-def.ts';
import type { Area, AreaContext } from '../checks/area.ts';
import { execute, type Execution } from './execute.ts';
import { generateProgram } from './generate.ts';
import { historyTable, loadHistory, saveHistory, seenRows, HISTORY_FORMAT } from './history-file.ts';
import { stepCount, steps, type KeyRole, type Program, type Step } from './program.ts';
import { shrink, type Shrunk } from './shrink.ts';
import { judgeExecution, MODEL_CHECK, type ModelCheck, type ModelVerdict, type VerdictOptions } from './verdict.ts';
import { parseInteger } from '../../spec/rules/fields.js';
import { header } from '../../judge/answers.ts';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';
import { send } from '../checks/support.ts';
import { RateLimitedError } from '../pacing.ts';

const PHASE = ['model'] as const;

const checks: readonly CheckDef[] = [
  {
    id: MODEL_CHECK.answers,
    level: 'must',
    profile: 'full',
    section: `${SECTION.list}; ${SECTION.create}; ${SECTION.get}; ${SECTION.auth}; RFC 9110 §9.3.2, §11.1`,
    title:
      "Every answer of the model's generated history meets the musts one answer shows: its input's (accepted, refused with a 4xx), its credentials' (every spelling of a key is the key; none is 401) and the judge's live checks",
    needs: PHASE,
  },
  {
    id: MODEL_CHECK.windows,
    level: 'must',
    profile: 'full',
    section: `${SECTION.headers}; ${SECTION.exceeded}`,
    title:
      "Each key's admissions, refusals and rate-limit headers in the model's history, requests overlapping and the key spelled every allowed way, are explained by one allowed reading of its window",
    needs: PHASE,
  },
  { ...JUDGE_CHECKS.find((c) => c.id === MODEL_CHECK.store)!, needs: PHASE },
];

/** The run's keys by role. */
function keysOf(ctx: AreaContext): Partial<Record<KeyRole, string>> {
  return { 'api-key': ctx.options.apiKey, ...(ctx.options.rateLimitKey ? { 'rate-limit-key': ctx.options.rateLimitKey } : {}) };
}

function verdictOptions(ctx: AreaContext): VerdictOptions {
  return { contract: ctx.contract, profile: ctx.options.profile, dateHeader: ctx.options.dateHeader, clockToleranceSeconds: ctx.options.clockToleranceSeconds };
}

/**
 * Requests to send with the rate-limit key: a few past what its window has left (read off the
 * preflight's answer, else off one request sent now), at most 80.
 */
async function rateLimitRequests(ctx: AreaContext): Promise<number> {
  const key = ctx.options.rateLimitKey;
  if (!key) return 0;
  const atStart =
    ctx.facts.rateLimitKeyAtStart ??
    (await send(ctx, {
      operationId: 'listPets',
      purpose: "the model phase reads --rate-limit-key's window",
      method: 'GET',
      path: '/pets',
      query: { limit: 1 },
      authorization: ctx.http.bearer(key),
    }));
  const remaining = parseInteger(header(atStart, LOWER_HEADERS.rateLimitRemaining));
  const limit = parseInteger(header(atStart, LOWER_HEADERS.rateLimitLimit));
  // With --ban-check, deep enough past the window for a ban to begin (the reference bans after 20 refusals).
  return Math.min(100, (remaining ?? limit ?? 20) + (ctx.options.banCheck ? 24 : 8));
}

/** Requests of the API key kept in hand at the end of the model phase (the shrunk failures are sent again). */
const RESERVE = 5;

/** What --max-requests counts of the model's requests: all but the rate-limit key's, which is never paced. */
const counted = (s: Step) => !('key' in s.credentials) || s.credentials.key === 'api-key';

/**
 * The program cut where --max-requests runs out (counted like every generated phase's: the API key's
 * requests and those without a valid key), and with --no-wait where what the key's window has left
 * runs out, so that the run never waits for it. The budget is charged for what is sent (execute.ts
 * skips the pages of a walk that has ended).
 */
function fitted(ctx: AreaContext, program: Program): { program: Program; why?: string } {
  const left = ctx.pacer.known('key').remaining;
  const room = !ctx.options.wait && left !== null ? Math.max(0, left - RESERVE) : Infinity;
  let allowed = Math.min(ctx.budget.left, room);
  const rounds: Program['rounds'] = [];
  let cut = 0;
  for (const round of program.rounds) {
    const needed = round.filter(counted).length;
    if (cut > 0 || needed > allowed) {
      cut += needed;
      continue;
    }
    allowed -= needed;
    rounds.push(round);
  }
  ctx.budget.refused += cut;
  if (cut === 0) return { program: { ...program, rounds } };
  const why = room < ctx.budget.left ? `--no-wait, and --api-key has ${left} requests left in its window` : `--max-requests ${ctx.options.maxRequests}`;
  return { program: { ...program, rounds }, why: `${cut} requests left out (${why})` };
}

/** Charges --max-requests for the requests a sending really made. */
function charge(ctx: AreaContext, execution: Execution): void {
  for (const s of execution.sent) if (s.exchange && counted(s.step)) ctx.budget.take();
}

let sendings = 0;

const usesApiKey = (s: Step) => 'key' in s.credentials && s.credentials.key === 'api-key';

/**
 * Sends a program, paced like every phase's requests with --api-key: before a round, the pacer waits
 * if the key's window has too little left for it; after it, the pacer learns what the window has left
 * from the round's last admitted answer (a 429 is the model's to judge, and is sent nothing again).
 */
async function sendProgram(ctx: AreaContext, program: Program): Promise<Execution> {
  const execution = await execute(ctx, program, keysOf(ctx), `${ctx.token}-m${++sendings}`, {
    before: async (round) => {
      const needed = round.filter(usesApiKey).length;
      try {
        if (needed > 0) await ctx.pacer.ensure('key', needed, `${needed} requests of the model phase sent at once`);
        return undefined;
      } catch (error) {
        if (!(error instanceof RateLimitedError)) throw error;
        // The history so far is judged; what is left is not sent.
        ctx.progress({ type: 'note', text: `model phase: stopped early, ${error.message}` });
        return `not sent: ${error.message}`;
      }
    },
    after: async (answers) => {
      const last = answers.filter((a) => usesApiKey(a.step) && a.exchange?.response && a.exchange.response.status !== 429).at(-1)?.exchange;
      if (last && 'spelling' in answers.find((a) => a.exchange === last)!.step.credentials) {
        // The pacer reads the key by its canonical spelling only: any spelling's answer tells the same window.
        await ctx.pacer.after({ ...last, request: { ...last.request, headers: { ...last.request.headers, authorization: ctx.http.bearer() } } });
      }
    },
  });
  charge(ctx, execution);
  return execution;
}

/** The first failure of a check shrunk, sent again, saved: what the report says of it. */
async function explain(ctx: AreaContext, program: Program, shrunk: Shrunk, replaying: boolean): Promise<string> {
  const rows = seenRows(shrunk.program, shrunk.sent);
  let again = '';
  if (!replaying) {
    const replay = await sendProgram(ctx, shrunk.program);
    const refound = judgeExecution(replay, verdictOptions(ctx)).findings.some((f) => f.check === shrunk.check);
    again = refound ? 'sent again, it failed again' : 'sent again, it did not fail (the failure may depend on timing or on the state the whole history left)';
  }
  let saved = '';
  if (!replaying && ctx.options.historyDir) {
    const path = saveHistory(ctx.options.historyDir, {
      format: HISTORY_FORMAT,
      seed: program.seed,
      check: shrunk.check,
      finding: shrunk.finding.message,
      program: shrunk.program,
      seen: rows,
    });
    saved = `; saved: conform --replay ${path}`;
  }
  const size = `shrunk from ${shrunk.from} requests to ${stepCount(shrunk.program)} from ${shrunk.program.clients} client${shrunk.program.clients === 1 ? '' : 's'}`;
  return `${shrunk.finding.message}\n${size} (seed ${program.seed}${again ? `; ${again}` : ''}${saved}):\n${historyTable(rows)}`;
}

async function record(ctx: AreaContext, program: Program, execution: Execution, verdict: ModelVerdict, replaying: boolean): Promise<void> {
  for (const def of checks) {
    const check = def.id as ModelCheck;
    const first = verdict.findings.find((f) => f.check === check);
    if (first) {
      const shrunk = shrink(program, execution, first, verdictOptions(ctx));
      const count = verdict.findings.filter((f) => f.check === check).length;
      const message = await explain(ctx, program, shrunk, replaying);
      ctx.ledger.fail(
        check,
        count > 1 ? `${message}\n(${count - 1} more finding${count > 2 ? 's' : ''} of this check in the whole history)` : message,
        shrunk.finding.exchanges,
        undefined,
        shrunk.finding.causes,
      );
    } else if (verdict.judged.has(check)) ctx.ledger.pass(check);
  }
}

async function modelPhase(ctx: AreaContext): Promise<void> {
  const replay = ctx.options.replay ? loadHistory(ctx.options.replay) : undefined;
  const generated =
    replay?.program ??
    generateProgram(ctx.contract, {
      seed: ctx.options.seed,
      clients: ctx.options.clients,
      steps: ctx.options.modelRequests,
      keys: Object.keys(keysOf(ctx)) as KeyRole[],
      rateLimitRequests: await rateLimitRequests(ctx),
    });
  const { program, why } = fitted(ctx, generated);
  if (why) ctx.progress({ type: 'note', text: `model phase: ${why}` });
  const used = new Set(steps(program).flatMap((s) => ('key' in s.credentials ? [s.credentials.key] : [])));
  if (used.has('rate-limit-key') && !ctx.options.rateLimitKey) {
    for (const def of checks) ctx.ledger.notRun(def.id, 'the history uses --rate-limit-key, which this run was not given');
    return;
  }
  // A window the rate-limit phase left refused is waited out (with --no-wait too: the model's requests judge what the key does next).
  const due = ctx.facts.rateLimitVerdict?.retryDueMs();
  if (used.has('rate-limit-key') && due && ctx.options.wait) {
    const ms = due - ctx.clock.now();
    if (ms > 0 && ms <= ctx.options.maxWaitSeconds * 1000) await ctx.wait(ms, "--rate-limit-key's refusal, before the model phase opens its window again");
  }
  ctx.progress({
    type: 'note',
    text: `model phase: ${stepCount(program)} requests in ${program.rounds.length} rounds from ${program.clients} clients (seed ${program.seed}${replay ? `, replaying ${ctx.options.replay}` : ''})`,
  });
  const execution = await sendProgram(ctx, program);
  await record(ctx, program, execution, judgeExecution(execution, verdictOptions(ctx)), replay !== undefined);
}

export const modelArea: Area = { name: 'model', checks, phases: { model: modelPhase } };
