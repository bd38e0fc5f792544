// A user's Dredd hook file for `conform --hookfiles`, as the guide shows it: one header on one
// transaction, named as `dredd --names` prints it for the derived description. `.cjs`: Dredd
// require()s hook files, and this package is an ES module one. server-command.test.ts loads it.
'use strict';
const hooks = require('hooks');

hooks.before('/pets > Add an animal > 201 > application/json', (transaction) => {
  transaction.request.headers['X-Request-Id'] = 'conform-example-create';
});
