// The API reference of the server that serves this page. The contract is fetched from the same
// server, and "Try it out" sends requests to it: this server is put first in the contract's
// servers. Everything the page needs comes from this server (the Content-Security-Policy forbids
// any other origin), so it works offline.
(async function () {
  var response = await fetch('__BASE__/openapi.json');
  var spec = await response.json();
  spec.servers = [{ url: window.location.origin + '__BASE__', description: 'This server' }].concat(spec.servers || []);
  window.ui = SwaggerUIBundle({
    spec: spec,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    persistAuthorization: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
})();
