/** The fixture MCP server over stdio, for the source's stdio bound tests (run with `node --import tsx`). */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { fixtureMcpServer } from './fixture-server.js';

// `drop`: the server dies with the call it was sent, its answer lost.
await fixtureMcpServer(['echo', 'huge', 'hold', 'drop'], 50, { calls: 0, cancelled: 0, lists: 0 }, { dropConnections: () => process.kill(process.pid, 'SIGKILL') }).connect(new StdioServerTransport());
