// How a store finding names what was seen: each request by its number, method and URL, each time
// from the first request the finding shows, so an implementer can find the requests in a log.
import type { Exchange } from '../exchange.ts';
import type { CreateOp } from './operations.ts';

/** The path and query of a request, without the origin. */
export function target(exchange: Exchange): string {
  try {
    const url = new URL(exchange.request.url, 'http://store.invalid');
    return `${url.pathname}${url.search}`;
  } catch {
    return exchange.request.url;
  }
}

export function request(exchange: Exchange): string {
  return `request ${exchange.seq} (${exchange.request.method.toUpperCase()} ${target(exchange)})`;
}

export function ms(at: number, origin: number): string {
  return `+${Math.round(at - origin)} ms`;
}

export function answer(exchange: Exchange): string {
  if (exchange.response) return `answered ${exchange.response.status}`;
  return exchange.error ? `no answer (${exchange.error})` : 'no answer';
}

/** A created pet, by what is known of it. */
export function pet(create: CreateOp, origin: number, id?: number): string {
  const ex = create.exchange;
  if (create.pet) return `pet ${create.pet.id} (created by request ${ex.seq}, ${answer(ex)} at ${ms(ex.receivedAt, origin)})`;
  const named = create.name !== undefined ? `the pet named ${JSON.stringify(create.name)}` : 'the pet';
  return `${named}${id !== undefined ? ` (id ${id})` : ''} of request ${ex.seq} (POST ${target(ex)}, ${answer(ex)}: it may or may not have been created)`;
}

/** Requests by number: "request 9", "requests 9-11", "requests 9, 12 and 14". */
export function seqs(exchanges: readonly Exchange[]): string {
  const numbers = exchanges.map((e) => e.seq);
  if (numbers.length === 1) return `request ${numbers[0]}`;
  const consecutive = numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1);
  if (consecutive) return `requests ${numbers[0]}-${numbers.at(-1)}`;
  return `requests ${numbers.slice(0, -1).join(', ')} and ${numbers.at(-1)}`;
}
