// The API reference of the server that serves this page. The contract is fetched from the same
// server, and "Try it out" sends requests to it: the served contract names this server first, and
// the page puts the origin it was loaded from there in any case (a proxy may have hidden the one the
// browser used from the server), since the Content-Security-Policy allows no other. Everything the
// page needs comes from this server, so it works offline.
(async function () {
  var response = await fetch('__BASE__/openapi.json');
  var spec = await response.json();
  var here = window.location.origin + '__BASE__';
  var others = (spec.servers || []).filter(function (server) {
    return server.url !== here;
  });
  spec.servers = [{ url: here, description: 'This server' }].concat(others);
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
