// The API reference of the server that serves this page, which it works offline from. "Try it out"
// goes to the origin the page was loaded from, put first among the contract's servers even though the
// server names itself there: a proxy may have hidden that origin from it, and the CSP allows no other.
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
