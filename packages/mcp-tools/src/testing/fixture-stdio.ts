/** The fixture MCP server over stdio, for the source's stdio bound tests (run with `node --import tsx`). */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { fixtureMcpServer } from './fixture-server.js';

await fixtureMcpServer(['echo', 'huge', 'hold'], 50, { calls: 0, cancelled: 0, lists: 0 }).connect(new StdioServerTransport());
