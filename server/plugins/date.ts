// The Date header from the server's clock, not the machine's: once the admin API moves the clock,
// X-RateLimit-Reset, Retry-After, Sunset and Date all tell one time, so a client (or the judging
// proxy) that reads a wait against Date finds the wait the server meant.
import type { Plugin, ResponseObject } from '@hapi/hapi';
import type { Boom } from '@hapi/boom';
import { formatHttpDate } from '../../spec/rules/fields.js';
import type { Clock } from '../clock.ts';

export interface DatePluginOptions {
  /** Reads the clock; `dateHeader(clock)` builds one. */
  date: () => string;
}

/**
 * The Date value of the clock's current second, formatted once a second as Node does for its own:
 * every response of a busy server would otherwise format the same text again.
 */
export function dateHeader(clock: Clock): () => string {
  let second = Number.NaN;
  let text = '';
  return () => {
    const now = Math.floor(clock.now() / 1000);
    if (now !== second) {
      second = now;
      text = formatHttpDate(now * 1000);
    }
    return text;
  };
}

/**
 * Sets Date as the response leaves hapi (after any injected delay, so it is the time the answer was
 * generated, RFC 9110 §6.6.1). Answers that bypass hapi get theirs from the listener (listener.ts).
 */
export const datePlugin: Plugin<DatePluginOptions> = {
  name: 'date',
  version: '1.0.0',
  register(server, { date }) {
    server.ext('onPreResponse', (request, h) => {
      const response = request.response as ResponseObject | Boom | null;
      if (!response) return h.continue;
      if ('isBoom' in response && response.isBoom) response.output.headers.date = date();
      else (response as ResponseObject).header('date', date());
      return h.continue;
    });
  },
};
