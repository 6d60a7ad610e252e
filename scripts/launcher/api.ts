/**
 * The few orchestrator calls the launcher makes, with the API key; an error answer becomes an
 * Error carrying the API's own message.
 */

export interface RunView {
  run_id: string;
  status: string;
  progress: number;
  stages: { name: string; status: string }[];
  result: { title: string; content: string; word_count: number } | null;
  error: { message: string; stage?: string } | null;
}

export interface ApiClient {
  headers: Record<string, string>;
  url(pathname: string): string;
  submitBatch(topics: readonly string[]): Promise<{ batch_id: string; run_ids: string[] }>;
  getRun(runId: string): Promise<RunView>;
}

export function apiClient(apiUrl: string, apiKey: string): ApiClient {
  const headers = { authorization: `Bearer ${apiKey}` };
  const call = async <T>(pathname: string, init: RequestInit = {}): Promise<T> => {
    const res = await fetch(`${apiUrl}${pathname}`, { ...init, headers: { ...headers, 'content-type': 'application/json' }, signal: AbortSignal.timeout(30_000) });
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (!res.ok) {
      const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? text.slice(0, 200);
      throw new Error(`${init.method ?? 'GET'} ${pathname}: HTTP ${res.status} ${message}`);
    }
    return body as T;
  };
  return {
    headers,
    url: (pathname) => `${apiUrl}${pathname}`,
    submitBatch: (topics) => call('/v1/batches', { method: 'POST', body: JSON.stringify({ items: topics.map((topic) => ({ topic })) }) }),
    getRun: (runId) => call(`/v1/runs/${encodeURIComponent(runId)}`),
  };
}
