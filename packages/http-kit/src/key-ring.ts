/**
 * The configured API keys and their scopes, and who a request turned out to be. Keys are held
 * by their SHA-256 digests and a presented key is compared with every one of them in constant
 * time, so response timing says nothing about how much of a guess was right, nor which key it
 * came near.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { allows, withImpliedScopes, type ApiKeyEntry, type Scope } from '@switchyard/config';
import { ErrorCodes } from '@switchyard/contracts';
import { HttpError } from './errors.js';

/** Error codes of the key checks beyond `unauthorized`. */
export const AuthErrorCodes = {
  /** 403: the key (or the session's key) lacks the scope the route needs. */
  insufficientScope: 'insufficient_scope',
  /** 429: too many wrong keys from this client address lately. */
  tooManyFailedKeys: 'too_many_failed_keys',
} as const;

/** A configured key, known by its digest (hex SHA-256), never by the key itself. */
export interface KeyIdentity {
  digest: string;
  scopes: ReadonlySet<Scope>;
}

/** Who made a request: the key's identity, and whether it came as the key or as a browser session. */
export interface Principal extends KeyIdentity {
  via: 'key' | 'session';
}

/** The hex SHA-256 of a key: how a key is named in Redis and in memory. */
export const keyDigest = (key: string): string => createHash('sha256').update(key).digest('hex');

export class KeyRing {
  readonly #digests: Buffer[];
  readonly #identities: KeyIdentity[];
  readonly #byDigest: Map<string, KeyIdentity>;

  /** @param keys plain keys (every scope) or parsed API_KEYS entries */
  constructor(keys: readonly (string | ApiKeyEntry)[]) {
    const entries = keys.map((k) => (typeof k === 'string' ? { key: k, scopes: withImpliedScopes([]) } : k));
    this.#digests = entries.map((e) => createHash('sha256').update(e.key).digest());
    this.#identities = entries.map((e, i) => ({ digest: this.#digests[i]?.toString('hex') ?? '', scopes: new Set(e.scopes) }));
    this.#byDigest = new Map(this.#identities.map((identity) => [identity.digest, identity]));
  }

  get size(): number {
    return this.#identities.length;
  }

  /** The key's identity when `candidate` is a configured key; every key is compared, whatever matches. */
  identify(candidate: string | undefined): KeyIdentity | undefined {
    if (!candidate) return undefined;
    const presented = createHash('sha256').update(candidate).digest();
    let found = -1;
    for (const [i, known] of this.#digests.entries()) found = timingSafeEqual(known, presented) ? i : found;
    return this.#identities[found];
  }

  /** The identity of a key still configured, by its digest (a session's record names its key so). */
  byDigest(digest: string): KeyIdentity | undefined {
    return this.#byDigest.get(digest);
  }
}

const principals = new WeakMap<Request, Principal>();

/** Records who made `req` (the auth middleware does, once the key or session is accepted). */
export function setPrincipal(req: Request, principal: Principal): void {
  principals.set(req, principal);
}

/** Who made `req`, when an auth middleware accepted it. */
export function principalOf(req: Request): Principal | undefined {
  return principals.get(req);
}

/** The 403 answered when a key lacks `scope`: it names the scope needed and the scopes held. */
export function insufficientScope(scope: Scope, held: Iterable<Scope>): HttpError {
  const scopes = [...held];
  return new HttpError({
    status: 403,
    code: AuthErrorCodes.insufficientScope,
    message: `This needs the '${scope}' scope; the key has ${scopes.map((s) => `'${s}'`).join(', ') || 'none'}`,
    details: { required_scope: scope, scopes },
  });
}

/** Lets through a request whose principal holds `scope`; 403 `insufficient_scope` otherwise, 401 with no principal. */
export function requireScope(scope: Scope): RequestHandler {
  return (req, _res, next) => {
    const principal = principalOf(req);
    if (!principal) return next(new HttpError({ status: 401, code: ErrorCodes.unauthorized, message: 'An API key is required (X-API-Key or Authorization: Bearer)' }));
    if (!allows(principal.scopes, scope)) return next(insufficientScope(scope, principal.scopes));
    next();
  };
}
