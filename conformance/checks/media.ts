// Bodies in other forms than the plain application/json the description shows: the same media type
// with a charset parameter or in other letters must be accepted (RFC 8259 §11: the parameter has no
// effect; RFC 9110 §8.3.1: type and subtype are case-insensitive); text that is not JSON must be
// refused; another media type, charset or content coding should be 415, malformed JSON 400.
import { baseBody, successStatuses } from '../generate/cases.ts';
import type { SendOptions } from '../http.ts';
import type { Exchange } from '../../judge/exchange.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import { type Area, type AreaContext } from './area.ts';
import { SECTION } from '../../judge/check-def.ts';
import { describeStatus, status } from '../../judge/answers.ts';
import { send } from './support.ts';

const checks: readonly CheckDef[] = [
  {
    id: 'media.json-variants',
    level: 'must',
    profile: 'contract',
    section: `${SECTION.create}; RFC 8259 §11, RFC 9110 §8.3.1`,
    title: 'A valid body sent as "application/json; charset=utf-8", or with the media type in capitals, is accepted like plain application/json',
    needs: ['coverage'],
  },
  {
    id: 'media.not-json-refused',
    level: 'must',
    profile: 'contract',
    section: `${SECTION.create}; RFC 8259`,
    title: 'A body that is not a JSON text (cut short, form-encoded, empty) is refused with a 4xx',
    needs: ['coverage'],
  },
  {
    id: 'media.refusals',
    level: 'should',
    profile: 'contract',
    section: `${SECTION.create}; RFC 9110 §15.5.16, §8.4.1; RFC 8259 §8.1`,
    title:
      'Another media type, a charset other than UTF-8 or an unknown Content-Encoding is refused with 415; malformed JSON or bytes that are not UTF-8 with 400 and an Error body',
    needs: ['coverage'],
  },
];

interface MediaCase {
  check: 'media.json-variants' | 'media.not-json-refused' | 'media.refusals';
  purpose: string;
  body: string | Buffer;
  contentType: string;
  headers?: Record<string, string>;
  /** The statuses that pass; for refusals any 4xx passes the must check. */
  expect: readonly number[];
  /** Outside the description: judged only here and by errors.no-server-error. */
  outside?: string;
}

function cases(ctx: AreaContext, json: string): MediaCase[] {
  const created = successStatuses(ctx.contract.operations.get('createPet')!);
  const cut = json.slice(0, Math.max(1, json.length - 2));
  const utf8Broken = Buffer.concat([
    Buffer.from(json.slice(0, json.indexOf(':') + 2), 'utf8'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from(json.slice(json.indexOf(':') + 2), 'utf8'),
  ]);
  return [
    {
      check: 'media.json-variants',
      purpose: 'create with Content-Type: application/json; charset=utf-8',
      body: json,
      contentType: 'application/json; charset=utf-8',
      expect: created,
    },
    { check: 'media.json-variants', purpose: 'create with Content-Type: APPLICATION/JSON', body: json, contentType: 'APPLICATION/JSON', expect: created },
    { check: 'media.not-json-refused', purpose: 'create with JSON cut short', body: cut, contentType: 'application/json', expect: [400], outside: 'not JSON' },
    {
      check: 'media.not-json-refused',
      purpose: 'create with a form-encoded body labelled application/json',
      body: 'name=x&categoryId=1',
      contentType: 'application/json',
      expect: [400],
      outside: 'not JSON',
    },
    { check: 'media.not-json-refused', purpose: 'create with an empty body', body: '', contentType: 'application/json', expect: [400] },
    {
      check: 'media.refusals',
      purpose: 'create with Content-Type: text/plain',
      body: json,
      contentType: 'text/plain',
      expect: [415],
      outside: 'another media type',
    },
    {
      check: 'media.refusals',
      purpose: 'create with charset=iso-8859-1',
      body: json,
      contentType: 'application/json; charset=iso-8859-1',
      expect: [415],
      outside: 'another charset',
    },
    {
      check: 'media.refusals',
      purpose: 'create with Content-Encoding: x-conformance',
      body: json,
      contentType: 'application/json',
      headers: { 'content-encoding': 'x-conformance' },
      expect: [415],
      outside: 'an unknown content coding',
    },
    {
      check: 'media.refusals',
      purpose: 'create with bytes that are not UTF-8',
      body: utf8Broken,
      contentType: 'application/json',
      expect: [400],
      outside: 'not UTF-8',
    },
  ];
}

function judge(ctx: AreaContext, c: MediaCase, ex: Exchange): void {
  const code = status(ex);
  if (c.check === 'media.json-variants') {
    ctx.ledger.assert(
      c.check,
      code !== undefined && c.expect.includes(code),
      `${c.purpose}: answered ${describeStatus(ex)}, expected ${c.expect.join(' or ')}`,
      [ex],
    );
    return;
  }
  if (c.check === 'media.not-json-refused') {
    ctx.ledger.assert(c.check, code !== undefined && code >= 400 && code < 500, `${c.purpose}: answered ${describeStatus(ex)}, expected a 4xx refusal`, [ex]);
    // Which 4xx is good practice, not the specification's.
    if (code !== undefined && code >= 400 && code < 500 && !c.expect.includes(code))
      ctx.ledger.fail('media.refusals', `${c.purpose}: refused with ${code}, expected ${c.expect.join(' or ')}`, [ex]);
    else if (code !== undefined && c.expect.includes(code)) ctx.ledger.pass('media.refusals');
    return;
  }
  let errorBody = false;
  try {
    const body = JSON.parse(ex.response?.body ?? '') as Record<string, unknown>;
    errorBody = typeof body.code === 'string' && typeof body.message === 'string' && body.status === code;
  } catch {
    errorBody = false;
  }
  const ok = code !== undefined && c.expect.includes(code) && errorBody;
  ctx.ledger.assert(
    c.check,
    ok,
    `${c.purpose}: answered ${describeStatus(ex)}${code !== undefined && c.expect.includes(code) && !errorBody ? ' without an Error body' : `, expected ${c.expect.join(' or ')}`}`,
    [ex],
  );
}

async function coverage(ctx: AreaContext): Promise<void> {
  const create = ctx.contract.operations.get('createPet')!;
  const base = baseBody(create);
  if (!base) return;
  for (const c of cases(ctx, JSON.stringify(base))) {
    if (!ctx.budget.take()) return ctx.progress({ type: 'note', text: `media types: cases left out (--max-requests ${ctx.options.maxRequests})` });
    const options: SendOptions = {
      operationId: 'createPet',
      purpose: c.purpose,
      method: create.method,
      path: create.path,
      rawBody: c.body,
      contentType: c.contentType,
      phase: 'coverage',
      ...(c.headers ? { headers: c.headers } : {}),
      ...(c.outside ? { outside: c.outside } : {}),
    };
    judge(ctx, c, await send(ctx, options));
  }
}

export const mediaArea: Area = { name: 'media types', checks, phases: { coverage } };
