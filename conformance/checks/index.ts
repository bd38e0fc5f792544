// The areas of checks, in the order they send their requests within a phase, and the catalogue
// built from what they define.
import type { CheckDef } from '../../judge/check-def.ts';
import type { Area, LiveArea } from './area.ts';
import { authArea } from './auth.ts';
import { choicesArea } from './choices.ts';
import { concurrencyArea } from './concurrency.ts';
import { createArea } from './create.ts';
import { deprecationArea } from './deprecation.ts';
import { dreddArea } from './dredd.ts';
import { getArea } from './get.ts';
import { inputArea } from './input.ts';
import { listArea } from './list.ts';
import { mediaArea } from './media.ts';
import { methodsArea } from './methods.ts';
import { rateLimitArea } from './rate-limit.ts';
import { rateLimitHeadersArea } from './rate-limit-headers.ts';
import { responseTimeArea } from './response-time.ts';
import { responsesArea } from './responses.ts';
import { statefulArea } from './stateful.ts';
import { variationsArea } from './variations.ts';

// create before get and auth, which use the pet it created; the generated areas (input, media,
// methods, variations, stateful) after the fixed ones, whose checks they do not disturb.
export const AREAS: readonly Area[] = [
  listArea,
  createArea,
  getArea,
  authArea,
  responsesArea,
  responseTimeArea,
  rateLimitHeadersArea,
  deprecationArea,
  dreddArea,
  inputArea,
  mediaArea,
  methodsArea,
  variationsArea,
  statefulArea,
  rateLimitArea,
  concurrencyArea,
  choicesArea,
];

export const CATALOGUE: readonly CheckDef[] = AREAS.flatMap((area) => area.checks);

/** The areas that judge each exchange on its own, which the judging proxy applies to live traffic. */
export const LIVE_AREAS: readonly LiveArea[] = [createArea, authArea, responsesArea, rateLimitHeadersArea, deprecationArea];
