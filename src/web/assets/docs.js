/* Starts Swagger UI on /docs (src/web/docs.tsx) for the document named by #swagger-ui's data-url.
   Nothing is fetched from elsewhere: no validator badge (it would ask validator.swagger.io), no
   ?url= or configUrl override, and "Try it out" calls this same service (the page's CSP allows
   connect-src 'self' only). */
(function () {
  var root = document.getElementById('swagger-ui');
  if (!root || typeof window.SwaggerUIBundle !== 'function') return;
  window.ui = window.SwaggerUIBundle({
    domNode: root,
    url: root.getAttribute('data-url'),
    queryConfigEnabled: false,
    validatorUrl: null,
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    filter: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
})();
