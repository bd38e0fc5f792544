// The areas of checks, in the order they send their requests within a phase, and the catalogue
// built from what they define.
import type { CheckDef } from '../catalogue.ts';
import type { Area } from './area.ts';
import { authArea } from './auth.ts';
import { createArea } from './create.ts';
import { deprecationArea } from './deprecation.ts';
import { dreddArea } from './dredd.ts';
import { getArea } from './get.ts';
import { listArea } from './list.ts';
import { rateLimitArea } from './rate-limit.ts';
import { rateLimitHeadersArea } from './rate-limit-headers.ts';
import { responsesArea } from './responses.ts';

// list first: its request also tells whether the target answers at all; create before get and
// auth, which use the pet it created.
export const AREAS: readonly Area[] = [listArea, createArea, getArea, authArea, responsesArea, rateLimitHeadersArea, deprecationArea, dreddArea, rateLimitArea];

export const CATALOGUE: readonly CheckDef[] = AREAS.flatMap((area) => area.checks);
