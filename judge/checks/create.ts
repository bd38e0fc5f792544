// createPet's checks: 201 with the Pet, 400 for missing and invalid fields, and what a store must do
// with a created pet (echo it, keep it, give it its own id, list it). conform drives them
// (conformance/checks/create.ts); every pet any exchange shows is judged here to have only Pet's properties.
import { SECTION, type CheckDef } from '../check-def.ts';
import { jsonBody, type Exchange } from '../exchange.ts';
import { status } from '../answers.ts';
import type { InspectContext, LiveChecks } from './inspect.ts';

const PET = 'Resources and their fields › Pet';

const checks: readonly CheckDef[] = [
  { id: 'create.201', level: 'must', profile: 'contract', section: SECTION.create, title: 'POST /pets with a valid NewPet answers 201 with a Pet' },
  {
    id: 'create.400-missing',
    level: 'must',
    profile: 'contract',
    section: SECTION.create,
    title: 'POST /pets without required fields answers 400 with an Error',
  },
  {
    id: 'create.400-invalid',
    level: 'must',
    profile: 'contract',
    section: SECTION.create,
    title: 'POST /pets with a wrongly typed categoryId or an unknown status answers 400',
  },
  { id: 'create.echo', level: 'must', profile: 'full', section: SECTION.create, title: 'The 201 body is the stored pet: the name, categoryId and status sent' },
  {
    id: 'create.retrievable',
    level: 'must',
    profile: 'full',
    section: SECTION.create,
    title: 'A created pet is returned by GET /pets/{id} with the same fields',
  },
  { id: 'create.unique-ids', level: 'must', profile: 'full', section: 'Resources and their fields › Pet', title: 'Two created pets get different ids' },
  { id: 'create.listed', level: 'must', profile: 'full', section: SECTION.list, title: 'A created pet appears in GET /pets filtered by its status' },
  {
    id: 'create.server-assigns-id',
    level: 'must',
    profile: 'full',
    section: PET,
    title:
      "The id is assigned by the server: a create that carries an id (an existing one, a fresh one) is refused or gets an id of the server's, and never overwrites a pet",
  },
  {
    id: 'create.location',
    level: 'should',
    profile: 'full',
    section: 'spec/openapi.yaml x-decision',
    title: 'A Location the 201 carries names the created pet: GET of it returns that pet',
  },
  {
    id: 'create.no-extra-properties',
    level: 'must',
    profile: 'full',
    section: PET,
    title: 'A pet, as created, listed or read, carries no property outside Pet, whatever the create sent',
  },
];

const propertiesOf = new WeakMap<object, Set<string>>();

/** The properties a Pet has: NewPet's and the id (read once per contract). */
function petProperties(ctx: Pick<InspectContext, 'contract'>): Set<string> {
  let names = propertiesOf.get(ctx.contract);
  if (!names) {
    names = new Set([...Object.keys((ctx.contract.operations.get('createPet')!.requestSchema?.should.properties ?? {}) as object), 'id']);
    propertiesOf.set(ctx.contract, names);
  }
  return names;
}

/** Every pet in every 2xx body has only Pet's properties. */
function inspect(ex: Exchange, ctx: InspectContext): void {
  if (ctx.options.profile !== 'full' || !ex.operationId || (status(ex) ?? 0) >= 300 || (status(ex) ?? 0) < 200) return;
  const body = jsonBody(ex);
  const pets = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : [];
  const allowed = petProperties(ctx);
  for (const pet of pets) {
    if (!pet || typeof pet !== 'object') continue;
    const outside = Object.keys(pet).filter((k) => !allowed.has(k));
    ctx.ledger.assert(
      'create.no-extra-properties',
      outside.length === 0,
      `${ex.purpose}: pet ${String((pet as Record<string, unknown>).id)} carries ${outside.join(', ')}, which Pet does not have`,
      [ex],
    );
  }
}

export const createChecks: LiveChecks = { name: 'create', checks, inspect };
