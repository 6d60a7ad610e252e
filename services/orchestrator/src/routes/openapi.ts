/**
 * `GET /openapi.json`, the API's OpenAPI document, and `GET /docs`, an interactive reference of
 * it (Swagger UI). Both are public, like `/health`. Swagger UI's files come from the
 * `swagger-ui-dist` package, installed with the rest, so the page works on a machine offline.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';
import { methodNotAllowed } from '@switchyard/http-kit';
import { createOpenApiDocument } from '../openapi/document.js';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));

/** The files of swagger-ui-dist the page loads; its own index.html (a demo) is not served. */
const ASSETS = new Set(['/swagger-ui.css', '/swagger-ui-bundle.js', '/favicon-32x32.png']);

// `validatorUrl: null`: by default Swagger UI sends the document to validator.swagger.io.
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Switchyard API reference</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });
  </script>
</body>
</html>
`;

const onlyAssets: RequestHandler = (req, _res, next) => (ASSETS.has(req.path) ? next() : next('router'));

export function openApiRouter(): Router {
  const router = Router();
  const document = createOpenApiDocument();

  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.get('/docs', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.use('/docs', onlyAssets, express.static(SWAGGER_UI_DIR, { index: false, redirect: false }));
  router.all('/openapi.json', methodNotAllowed('GET'));
  router.all('/docs', methodNotAllowed('GET'));
  return router;
}
