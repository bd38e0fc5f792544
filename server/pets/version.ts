// The pets' version a request saw on its limiter round trip, before its handler ran (it rides on
// that round trip: shared-version.ts), read by the pet routes so that a shared store may answer
// from its cache (store/pet-cache.ts). Absent when the limiter did not ask Redis.
import type { Request } from '@hapi/hapi';
import { carriedOf } from '../rate-limit/passenger.ts';
import type { PetsVersion } from '../store/pet-cache.ts';
import { carriedVersion } from './shared-version.ts';

export function petsVersionOf(request: Request): PetsVersion | undefined {
  const carried = carriedOf(request);
  return carried && carriedVersion(carried);
}
