/**
 * What stands before `/mcp`: the Origin check against DNS rebinding (a page on a foreign origin
 * that resolves to this host is refused, 403), CORS for the origins allowed, and the bearer key
 * (the orchestrator's keys and scopes; 401 with `WWW-Authenticate`, naming the protected-resource
 * metadata when an authorization server is configured; 429 for an address past its wrong keys).
 */
import type { RequestHandler } from 'express';
import { ErrorCodes } from '@switchyard/contracts';
import { clientAddress, errorBody, presentedKey, setPrincipal, tooManyFailedKeys, type FailedKeyLimiter, type KeyRing } from '@switchyard/http-kit';

/** `https://app.example.com` matches itself; `http://localhost:*` matches any port. */
export function originMatcher(allowed: readonly string[]): (origin: string) => boolean {
  const exact = new Set(allowed.filter((entry) => !entry.endsWith(':*')));
  const anyPort = allowed.filter((entry) => entry.endsWith(':*')).map((entry) => entry.slice(0, -2));
  return (origin) => exact.has(origin) || anyPort.some((base) => origin === base || (origin.startsWith(`${base}:`) && /^\d+$/.test(origin.slice(base.length + 1))));
}

const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

const LOOPBACK = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/;

/**
 * A page of the bridge's own loopback origin: its Host names this machine, which a page on a
 * rebinding domain cannot make it do (its Host is that domain).
 */
function sameLoopbackOrigin(origin: string, host: string | undefined): boolean {
  return host !== undefined && LOOPBACK.test(host) && (origin === `http://${host}` || origin === `https://${host}`);
}

/**
 * Requests without an Origin (agents, CLIs) pass, and so do pages of the bridge's own loopback
 * origin; any other browser origin must be on the list.
 * @param allowed origins such as `https://app.example.com` or `http://localhost:*`
 */
export function originGuard(allowed: readonly string[]): RequestHandler {
  const matches = originMatcher(allowed);
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin === undefined) return next();
    if (!matches(origin) && !sameLoopbackOrigin(origin, req.get('host'))) {
      res.status(403).json(jsonRpcError(-32000, `Forbidden: Origin ${origin} is not allowed`));
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id, WWW-Authenticate');
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE');
      res.setHeader('Access-Control-Allow-Headers', 'Authorization, X-API-Key, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID');
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}

/**
 * @param options.keys accepted keys and their scopes (not empty); the principal is recorded for the session
 * @param options.failedKeys counts wrong keys per client address (default: not counted)
 * @param options.resourceMetadataUrl named in the challenge when OAuth metadata is served
 */
export function bearerAuth(options: { keys: KeyRing; failedKeys?: FailedKeyLimiter; resourceMetadataUrl?: (req: Parameters<RequestHandler>[0]) => string }): RequestHandler {
  if (options.keys.size === 0) throw new Error('bearerAuth needs at least one key');
  return (req, res, next) => {
    const key = presentedKey(req);
    const address = clientAddress(req);
    const tooMany = (ms: number) => {
      const refusal = tooManyFailedKeys(ms);
      res.status(429).set(refusal.headers).json(errorBody(refusal.code, refusal.message, refusal.details));
    };
    // A valid key is never refused for the wrong keys others sent from its address (see http-kit's apiKeyAuth).
    const identity = options.keys.identify(key);
    if (identity) {
      setPrincipal(req, { ...identity, via: 'key' });
      return next();
    }
    const refused = key ? (options.failedKeys?.knownRefusal(address) ?? 0) : 0;
    if (refused > 0) return tooMany(refused);
    const metadata = options.resourceMetadataUrl ? `, resource_metadata="${options.resourceMetadataUrl(req)}"` : '';
    const unauthorized = () =>
      res
        .status(401)
        .set('WWW-Authenticate', `Bearer realm="switchyard"${key ? ', error="invalid_token"' : ''}${metadata}`)
        .json(errorBody(ErrorCodes.unauthorized, key ? 'The API key is not valid' : 'An API key is required (Authorization: Bearer or X-API-Key)'));
    if (!key || !options.failedKeys) return unauthorized();
    void options.failedKeys.fail(address).then((ms) => (ms > 0 ? tooMany(ms) : unauthorized()));
  };
}
