// Dredd hooks: only what the description cannot hold. The key, the transactions that must be built
// by hand (400, 401, 404), the id carried from the create step to the get step, and the full JSON
// Schema of each response body, because Dredd's OpenAPI 3 reader drops allOf, minimum, format and
// more. Names are exactly as `dredd --names` prints them; conformance/dredd/run.ts passes them in.
'use strict';
const hooks = require('hooks');

const settings = hooks.configuration.custom.conformance;
let createdId;

hooks.beforeEach((transaction) => {
  const plan = settings.transactions[transaction.name];
  const headers = transaction.request.headers;
  // Credentials stay with their origin: Dredd follows no redirect (request's followRedirect is off)
  // and sends only to --base-url, and a transaction that would go elsewhere is failed unsent.
  const origin = new URL(`${transaction.protocol}//${transaction.host}:${transaction.port}`).origin;
  if (origin !== settings.origin || !String(transaction.fullPath).startsWith('/')) {
    delete headers.Authorization;
    transaction.fail = `not sent: ${origin}${transaction.fullPath} is not on the origin of --base-url (${settings.origin})`;
    return;
  }
  if (settings.raw) {
    // Plain Dredd over the description as written: only the key, to compare against.
    headers.Authorization = `Bearer ${settings.apiKey}`;
    return;
  }
  if (!plan) {
    transaction.skip = true;
    return;
  }
  for (const [name, value] of Object.entries(settings.headers || {})) headers[name] = value;
  if (plan.authorization === 'none') delete headers.Authorization;
  else headers.Authorization = `Bearer ${settings.apiKey}`;
  if (plan.body !== undefined) transaction.request.body = plan.body;
  if (plan.prefer && settings.prefer) headers.Prefer = `code=${plan.status}`;
  let path = plan.path;
  if (plan.useCreatedId && createdId !== undefined) path = `/pets/${createdId}`;
  if (path !== undefined) {
    transaction.request.uri = path;
    transaction.fullPath = `${settings.basePath}${path}`;
  }
  transaction.expected.bodySchema = plan.bodySchema;
});

hooks.after(settings.createName, (transaction) => {
  try {
    const body = JSON.parse(transaction.real.body);
    if (typeof body.id === 'number') createdId = body.id;
  } catch {
    // the failure is Dredd's to report
  }
});

// Gavel compares Content-Type literally; a charset parameter on application/json is still JSON,
// and the kit's own checks validate the media type.
hooks.beforeEachValidation((transaction) => {
  const actual = transaction.real && transaction.real.headers && transaction.real.headers['content-type'];
  const expected = transaction.expected.headers || {};
  const key = Object.keys(expected).find((name) => name.toLowerCase() === 'content-type');
  if (key && actual && /^application\/json\s*(;|$)/i.test(actual) && /^application\/json\s*$/i.test(expected[key])) {
    expected[key] = actual;
  }
});
