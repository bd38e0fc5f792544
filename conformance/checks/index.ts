// The areas of checks, in the order they send their requests within a phase, and the catalogue
// built from what they define.
import type { CheckDef } from '../../judge/check-def.ts';
import type { Area } from './area.ts';
import { deprecationChecks } from '../../judge/checks/deprecation.ts';
import { rateLimitHeaderChecks } from '../../judge/checks/rate-limit-headers.ts';
import { responseChecks } from '../../judge/checks/responses.ts';
import { authArea } from './auth.ts';
import { choicesArea } from './choices.ts';
import { concurrencyArea } from './concurrency.ts';
import { connectionsArea } from './connections.ts';
import { createArea } from './create.ts';
import { dreddArea } from './dredd.ts';
import { getArea } from './get.ts';
import { inputArea } from './input.ts';
import { listArea } from './list.ts';
import { modelArea } from '../model/area.ts';
import { mediaArea } from './media.ts';
import { methodsArea } from './methods.ts';
import { rateLimitArea } from './rate-limit.ts';
import { responseTimeArea } from './response-time.ts';
import { statefulArea } from './stateful.ts';
import { variationsArea } from './variations.ts';

// create before get and auth, which use the pet it created; the generated areas (input, media,
// methods, variations, stateful) after the fixed ones, whose checks they do not disturb.
export const AREAS: readonly Area[] = [
  listArea,
  createArea,
  getArea,
  authArea,
  responseChecks,
  responseTimeArea,
  connectionsArea,
  rateLimitHeaderChecks,
  deprecationChecks,
  dreddArea,
  inputArea,
  mediaArea,
  methodsArea,
  variationsArea,
  statefulArea,
  rateLimitArea,
  concurrencyArea,
  modelArea,
  choicesArea,
];

export const CATALOGUE: readonly CheckDef[] = AREAS.flatMap((area) => area.checks);
