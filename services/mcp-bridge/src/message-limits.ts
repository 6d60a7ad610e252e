/**
 * The largest MCP message the bridge reads, over HTTP and over stdio alike. It sits well above
 * the largest payload a tool takes (an AceFlow analysis of 10 MB, seed 000), JSON escaping and
 * the JSON-RPC envelope included, so that such a payload reaches the tool and is answered in the
 * tool's own terms (INVALID_DATA just over its limit), not refused by the transport.
 */
export const MAX_MCP_MESSAGE_BYTES = 32 * 1024 * 1024;
