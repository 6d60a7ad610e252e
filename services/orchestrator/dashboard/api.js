// The /v1 API, with the browser session's cookie. A 401 means the key must be given (again).
export class Unauthorized extends Error {}

export class ApiError extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function api(path, { method = 'GET', body } = {}) {
  const init = { method, credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (res.status === 401) throw new Unauthorized('The API key is needed');
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(data?.error?.message ?? `${res.status} ${res.statusText}`, res.status, data?.error?.code);
  return data;
}

/** Opens the browser session with the key: true when the key was accepted. */
export async function openSession(key) {
  const res = await fetch('/ui/session', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }) });
  if (res.status === 204) return true;
  if (res.status === 401) return false;
  const data = await res.json().catch(() => null);
  throw new ApiError(data?.error?.message ?? `${res.status} ${res.statusText}`, res.status, data?.error?.code);
}

/** Whether the browser has a session: asked first, so that no request fails before the key is given. */
export async function sessionOpen() {
  const res = await fetch('/ui/session', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  const data = res.ok ? await res.json().catch(() => null) : null;
  return data?.open === true;
}

export async function closeSession() {
  await fetch('/ui/session', { method: 'DELETE', credentials: 'same-origin' });
}
