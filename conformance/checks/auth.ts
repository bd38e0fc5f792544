// Authentication: 401 without a key, with another scheme and with an unknown key, and the Bearer
// challenge on every 401 the run sees.
import type { SendOptions } from '../http.ts';
import { authChecks } from '../../judge/checks/auth.ts';
import type { AreaContext, LiveArea } from './area.ts';
import { expectResponse, send } from './support.ts';

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

export const authArea: LiveArea = { ...authChecks, phases: { contract, behaviour } };
