// The pets' version, shared through the limiter's Redis so that every instance's pet cache
// (store/pet-cache.ts) hears of the others' creates and resets. Each request reads it as a passenger
// of the limiter's script call (rate-limit/passenger.ts), before its handler runs, so it costs no
// round trip; moving it on is a script call of its own.
import { readFileSync } from 'node:fs';
import { KitError } from '../../lib/errors.ts';
import type { SharedRedis } from '../rate-limit/passenger.ts';
import type { PetsVersion, PetsVersionSource } from '../store/pet-cache.ts';

const lua = (file: string) => readFileSync(new URL(file, import.meta.url), 'utf8');
const VERSION_LUA = lua('./version.lua');
const PASSENGER_LUA = `${VERSION_LUA}\nlocal function passenger(key) return { petsVersion(key) } end`;
const BUMP_LUA = `${VERSION_LUA}\n${lua('./bump-version.lua')}`;

/**
 * From now on every decision on `redis` also reads the version of the pets in `schema`, kept under
 * the limiter's prefix (so instances that share pets, sharing that prefix, share it too, and an
 * admin reset of the limits starts a new epoch); the returned source moves it on.
 */
export function sharePetsVersion(redis: SharedRedis, schema: string): PetsVersionSource {
  const key = `${redis.prefix}{pets}:${schema}`;
  redis.carry({ lua: PASSENGER_LUA, key });
  const bump = redis.script(BUMP_LUA);
  return {
    async bump(kind) {
      const reply = await bump([key], [kind]);
      if (!Array.isArray(reply) || reply.length !== 2) {
        throw new KitError('pets_version_unreadable', `unexpected reply from the version script: ${JSON.stringify(reply)}`);
      }
      return { version: Number(reply[0]), epoch: Number(reply[1]) };
    },
  };
}

/** The version in what the passenger read (its version and epoch, in that order). */
export function carriedVersion(carried: readonly number[]): PetsVersion {
  return { version: carried[0]!, epoch: carried[1]! };
}
