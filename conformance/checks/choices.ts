// The points the specification leaves open (open-points.ts): what the target chose at each, seen
// with a few requests of its own and from what the other areas saw, reported whatever it is; and,
// where the implementer declared a choice (--choice), whether the target does what it declared.
import { parseRetryAfter } from '../../spec/rules/fields.js';
import { retryAfterRounding } from '../../judge/rules/field-rules.js';
import { readingById } from '../../judge/rules/readings.js';
import { readSnapshot } from '../../spec/rules/snapshot.js';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import { enumeration } from '../../judge/contract.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import type { Area, AreaContext } from './area.ts';
import { header, isPetArray, status } from '../../judge/answers.ts';
import { send } from './support.ts';

const checks: readonly CheckDef[] = [
  {
    id: 'choices.declared',
    level: 'must',
    profile: 'full',
    section: "the implementer's declaration (--choice) at a point the specification leaves open",
    title: 'At each point the specification leaves open where the implementer declared a choice (--choice), the target does what it declared',
  },
];

/** The declarable token an observation starts with ("refuse: 400" is refuse). */
const token = (observed: string) => observed.split(':')[0]!.trim();

async function behaviour(ctx: AreaContext): Promise<void> {
  const choices = ctx.facts.choices!;
  const list = ctx.facts.list ? jsonBody(ctx.facts.list) : undefined;
  if (isPetArray(list) && list.length > 1) {
    const ids = list.map((p) => Number(p.id));
    const rising = ids.every((id, i) => i === 0 || id > ids[i - 1]!);
    const falling = ids.every((id, i) => i === 0 || id < ids[i - 1]!);
    choices.set('order', rising ? 'oldest first (ascending id)' : falling ? 'newest first (descending id)' : 'neither ascending nor descending id');
  }
  const word = await send(ctx, { operationId: 'getPet', purpose: 'open point: GET /pets/abc', method: 'GET', path: '/pets/abc' });
  choices.set('non-integer-id', String(status(word) ?? 'no answer'));
  const created = ctx.facts.created;
  if (created) {
    const { status: _status, ...withoutStatus } = created.sent;
    const ex = await send(ctx, {
      operationId: 'createPet',
      purpose: 'open point: create without status',
      method: 'POST',
      path: '/pets',
      json: { ...withoutStatus, name: `${created.sent.name}-default` },
    });
    const body = jsonBody(ex) as Record<string, unknown> | undefined;
    if (status(ex) === 201 && typeof body?.status === 'string') choices.set('default-status', body.status);
    const location = header(created.exchange, 'location');
    choices.set('location', location === undefined ? 'none' : /^[a-z][a-z0-9+.-]*:/i.test(location) ? `absolute: ${location}` : `relative: ${location}`);
  }
}

/** Error codes seen, per run. */
const codesOf = new WeakMap<object, Set<string>>();

function inspect(ex: Exchange, ctx: AreaContext): void {
  const code = status(ex) ?? 0;
  if (code >= 400) {
    const body = jsonBody(ex) as Record<string, unknown> | undefined;
    let codes = codesOf.get(ctx.facts);
    if (!codes) codesOf.set(ctx.facts, (codes = new Set()));
    if (typeof body?.code === 'string') codes.add(body.code);
  }
  const retryAfter = header(ex, 'retry-after');
  if ((code === 429 || code === 403) && retryAfter !== undefined) {
    const form = parseRetryAfter(retryAfter, ex.receivedAt).form;
    if (form === 'delay-seconds') ctx.facts.choices?.set('retry-after', `seconds: ${retryAfter}${roundingRead(ex, ctx)}`);
    else if (form === 'http-date') ctx.facts.choices?.set('retry-after', `http-date: ${retryAfter}`);
  }
}

/** The readings of Retry-After's rounding (readings.js) that every refusal of the run agreed with so far, per run. */
const roundingOf = new WeakMap<object, string[]>();

/** "; read as …": the rounding readings the refusals so far agree with, told against X-RateLimit-Reset and Date; empty when none can be told. */
function roundingRead(ex: Exchange, ctx: AreaContext): string {
  const s = readSnapshot(
    { status: status(ex) ?? 0, headers: ex.response?.headers ?? null, receivedAtMs: ex.receivedAt, sentAtMs: ex.sentAt },
    { dateHeader: ctx.options.dateHeader },
  );
  const readings = retryAfterRounding(s);
  let held = roundingOf.get(ctx.facts);
  // A Retry-After naming another moment than Reset (a ban's) says nothing of rounding.
  if (readings && readings.length > 0) roundingOf.set(ctx.facts, (held = held ? held.filter((id) => readings.includes(id)) : readings));
  if (!held || held.length === 0) return '';
  return `; read as ${held.map((id) => readingById(id)?.name.replace(/^Retry-After: /, '') ?? id).join(', or ')} (${held.map((id) => `reading ${id}`).join(', ')})`;
}

/** Declared against seen: each declared point a pass or a failure, or a note when nothing showed it. */
function finish(ctx: AreaContext): void {
  const codes = codesOf.get(ctx.facts);
  if (codes) ctx.facts.choices?.set('error-codes', enumeration([...codes].sort(), 6));
  const declared = Object.entries(ctx.options.choices);
  if (declared.length === 0) return ctx.ledger.notRun('choices.declared', 'no choice declared (--choice <point>=<value>, or choice: in --config)');
  for (const [point, value] of declared) {
    const seen = ctx.facts.choices?.get(point);
    if (seen === undefined) {
      ctx.ledger.note('choices.declared', `${point}=${value} was not seen either way in this run`);
      continue;
    }
    ctx.ledger.assert('choices.declared', token(seen) === value, `${point}: declared ${value}, the target did ${seen}`);
  }
}

export const choicesArea: Area = { name: 'choices', checks, phases: { behaviour }, inspect, finish };
