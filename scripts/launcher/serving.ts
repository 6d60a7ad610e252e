/**
 * What `--serve` prints once the stack serves: where each part is and how to call it. A key is
 * printed only when the launcher made it (the local key, with the file that holds it): a key the
 * operator set in API_KEYS is theirs, and a launch's output ends up in terminals, logs and CI
 * runs, where it would leak.
 */

/** The key the launcher calls the API with: the local one it made (or kept), or one the operator set. */
export type LaunchKey = { kind: 'local'; key: string; file: string } | { kind: 'operator' };

export function servingLines(stack: { apiUrl: string; mcpUrl?: string | undefined }, key: LaunchKey): string[] {
  const shown = key.kind === 'local' ? key.key : '<your key>';
  return [
    key.kind === 'local' ? `Serving at ${stack.apiUrl}   API key: ${key.key}   (made by the launcher, kept in ${key.file})` : `Serving at ${stack.apiUrl}   API key: one of yours in API_KEYS (not printed)`,
    `  dashboard   ${stack.apiUrl}/   (give it the API key once; it lasts the browser session)`,
    `  Bull Board  ${stack.apiUrl}/admin/queues   (after the dashboard, or with the key)`,
    ...(stack.mcpUrl ? [`  MCP         ${stack.mcpUrl}   (Streamable HTTP; Authorization: Bearer <the API key>)`] : []),
    `  curl -s ${stack.apiUrl}/health`,
    `  curl -s -X POST ${stack.apiUrl}/v1/stories -H "Authorization: Bearer ${shown}" -H 'Content-Type: application/json' -d '{"topic":"a robot baker"}'`,
    'Ctrl-C stops everything.',
  ];
}
