// Authentication: 401 without a key, with another scheme and with an unknown key, and the Bearer
// challenge on every 401 the run sees.
import type { SendOptions } from '../http.ts';
import type { Exchange } from '../../judge/exchange.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import { SECTION, type AreaContext, type InspectContext, type LiveArea } from './area.ts';
import { expectResponse, send } from './support.ts';

const checks: readonly CheckDef[] = [
  {
    id: 'auth.401-missing',
    level: 'must',
    profile: 'contract',
    section: SECTION.auth,
    title: 'Every operation without Authorization answers 401 with an Error',
  },
  { id: 'auth.401-scheme', level: 'must', profile: 'contract', section: SECTION.auth, title: 'A key sent with another scheme than Bearer answers 401' },
  {
    id: 'auth.www-authenticate',
    level: 'should',
    profile: 'contract',
    section: `${SECTION.auth}; RFC 9110 §11.6.1, RFC 6750 §3`,
    title: 'A 401 carries WWW-Authenticate with the Bearer scheme',
  },
  { id: 'auth.401-unknown-key', level: 'must', profile: 'full', section: SECTION.auth, title: 'An unknown bearer key answers 401, not the resource' },
];

async function contract(ctx: AreaContext): Promise<void> {
  const knownId = ctx.facts.knownId ?? 1;
  const json = ctx.facts.created?.sent ?? { name: `conformance-${ctx.token}`, categoryId: 3 };
  const unauthenticated: SendOptions[] = [
    { operationId: 'createPet', purpose: 'create without Authorization', method: 'POST', path: '/pets', authorization: null, json },
    { operationId: 'getPet', purpose: 'get without Authorization', method: 'GET', path: `/pets/${knownId}`, authorization: null },
  ];
  // The preflight listed without Authorization already.
  const list =
    ctx.facts.keyless ??
    (await send(ctx, { operationId: 'listPets', purpose: 'list without Authorization', method: 'GET', path: '/pets', authorization: null }));
  expectResponse(ctx, 'auth.401-missing', list, 401);
  for (const options of unauthenticated) expectResponse(ctx, 'auth.401-missing', await send(ctx, options), 401);
  const basic = `Basic ${Buffer.from(`${ctx.options.apiKey}:`).toString('base64')}`;
  const wrongScheme = await send(ctx, {
    operationId: 'listPets',
    purpose: 'list with the key under the Basic scheme',
    method: 'GET',
    path: '/pets',
    authorization: basic,
  });
  expectResponse(ctx, 'auth.401-scheme', wrongScheme, 401);
}

async function behaviour(ctx: AreaContext): Promise<void> {
  const authorization = ctx.http.bearer(`conformance-unknown-${ctx.token}`);
  const unknownKey = await send(ctx, { operationId: 'listPets', purpose: 'list with an unknown key', method: 'GET', path: '/pets', authorization });
  expectResponse(ctx, 'auth.401-unknown-key', unknownKey, 401);
}

export const authArea: LiveArea = {
  name: 'auth',
  checks,
  phases: { contract, behaviour },
  inspect: (ex: Exchange, ctx: InspectContext) => {
    if (ex.response?.status !== 401 || ex.outside) return;
    const challenge = ex.response.headers['www-authenticate'];
    const ok = challenge !== undefined && /(^|,)\s*bearer(\s|,|$)/i.test(challenge);
    ctx.ledger.assert('auth.www-authenticate', ok, `${ex.purpose}: WWW-Authenticate is ${challenge === undefined ? 'missing' : JSON.stringify(challenge)}`, [
      ex,
    ]);
  },
};
