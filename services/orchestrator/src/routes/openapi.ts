/**
 * `GET /openapi.json`, the API's OpenAPI document, and `GET /docs`, an interactive reference of
 * it (Swagger UI). Both are public, like `/health`. Swagger UI's files come from the
 * `swagger-ui-dist` package, installed with the rest, so the page works on a machine offline.
 *
 * The page runs under a Content-Security-Policy that lets it load only this server's scripts (no
 * inline script: the initializer is a file of its own, `/docs/init.js`), talk only to this server
 * (the document, and *Try it out*), and be framed by no one.
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

/**
 * Swagger UI sets styles from script (React's style attributes, allowed as CSSOM writes) and
 * shows its icons and the models' examples as `data:` images; its bundle builds one function with
 * `new Function`, only on a path the page never takes, so `'unsafe-eval'` is not given.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// `validatorUrl: null`: by default Swagger UI sends the document to validator.swagger.io.
const INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n`;

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
  <script src="/docs/init.js"></script>
</body>
</html>
`;

const onlyAssets: RequestHandler = (req, _res, next) => (ASSETS.has(req.path) ? next() : next('router'));
const pageHeaders: RequestHandler = (_req, res, next) => {
  res.set({ 'Content-Security-Policy': DOCS_CSP, 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
  next();
};

export function openApiRouter(): Router {
  const router = Router();
  const document = createOpenApiDocument();

  router.get('/openapi.json', (_req, res) => {
    res.json(document);
  });
  router.get('/docs', pageHeaders, (_req, res) => {
    res.type('html').send(PAGE);
  });
  // Middleware rather than a route: a file of the page, not an operation of the API.
  router.use('/docs/init.js', (req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? pageHeaders(req, res, () => res.type('text/javascript').send(INIT)) : next()));
  router.use('/docs', onlyAssets, pageHeaders, express.static(SWAGGER_UI_DIR, { index: false, redirect: false }));
  router.all('/openapi.json', methodNotAllowed('GET'));
  router.all('/docs', methodNotAllowed('GET'));
  return router;
}
