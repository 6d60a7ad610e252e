/** The real fetch, with a log of what was requested, so tests can tell which requests were made. */
export interface RecordedRequest {
  method: string;
  url: string;
}

export function recordingFetch(): { fetch: typeof fetch; requests: RecordedRequest[]; onRequest?: (r: RecordedRequest) => void } {
  const recorder = {
    requests: [] as RecordedRequest[],
    onRequest: undefined as ((r: RecordedRequest) => void) | undefined,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const entry = { method: init?.method ?? 'GET', url: String(input) };
      recorder.requests.push(entry);
      recorder.onRequest?.(entry);
      return fetch(input, init);
    }) as typeof fetch,
  };
  return recorder;
}
