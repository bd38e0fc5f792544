// getPet: 200 with a Pet, and 404 for an id nobody has, with Prism's Prefer only when asked for
// and once more without it in the full profile.
import type { CheckDef } from '../../judge/check-def.ts';
import { type Area, type AreaContext } from './area.ts';
import { SECTION } from '../../judge/check-def.ts';
import { UNKNOWN_PET_ID } from '../../judge/answers.ts';
import { expectResponse, preferHeaders, send } from './support.ts';

const checks: readonly CheckDef[] = [
  { id: 'get.200', level: 'must', profile: 'contract', section: SECTION.get, title: 'GET /pets/{petId} of an existing pet answers 200 with a Pet' },
  { id: 'get.404', level: 'must', profile: 'contract', section: SECTION.get, title: 'GET /pets/{petId} of an unknown id answers 404 with an Error' },
  { id: 'get.404-unknown', level: 'must', profile: 'full', section: SECTION.get, title: 'An unknown id answers 404 without any hint to the server' },
];

async function contract(ctx: AreaContext): Promise<void> {
  const knownId = ctx.facts.knownId ?? 1;
  const got = await send(ctx, { operationId: 'getPet', purpose: `get pet ${knownId}`, method: 'GET', path: `/pets/${knownId}` });
  if (knownId === ctx.facts.created?.id) ctx.facts.getCreated = got;
  expectResponse(ctx, 'get.200', got, 200);

  const prefer = preferHeaders(ctx, 'get.404', 404);
  const path = `/pets/${UNKNOWN_PET_ID}`;
  const missing = await send(ctx, { operationId: 'getPet', purpose: 'get an unknown pet', method: 'GET', path, ...(prefer ? { headers: prefer } : {}) });
  ctx.facts.notFound = { exchange: missing, preferred: prefer !== undefined };
  expectResponse(ctx, 'get.404', missing, 404);
}

async function behaviour(ctx: AreaContext): Promise<void> {
  // The contract request serves, unless it carried Prefer.
  const earlier = ctx.facts.notFound;
  const notFound =
    earlier && !earlier.preferred
      ? earlier.exchange
      : await send(ctx, { operationId: 'getPet', purpose: 'get an unknown pet (no Prefer)', method: 'GET', path: `/pets/${UNKNOWN_PET_ID}` });
  expectResponse(ctx, 'get.404-unknown', notFound, 404);
}

export const getArea: Area = { name: 'get', checks, phases: { contract, behaviour } };
