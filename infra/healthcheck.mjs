// The image's HEALTHCHECK: readiness of the service in this container, GET /readyz on its port
// (METRICS_PORT for a worker, PORT for the orchestrator and the bridge), or the URL given as the
// first argument (the tool services: their /health). Exit 0 when it answers 2xx within 4 s, else 1.
const env = process.env;
const url = process.argv[2] || `http://127.0.0.1:${env.METRICS_PORT || env.PORT || '8080'}/readyz`;
fetch(url, { signal: AbortSignal.timeout(4000) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
