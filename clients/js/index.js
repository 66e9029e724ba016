/**
 * WorkspaceBridge client for Node 18+ (ES module, no dependencies).
 * Types: index.d.ts (runtime API) and protocol.d.ts (generated from schema/openrpc.json).
 */
export { WorkspaceBridgeClient, CLIENT_INFO } from './lib/client.js';
export { JsonRpcConnection } from './lib/connection.js';
export { WorkspaceBridgeError, ConnectionClosedError, ErrorCodes } from './lib/errors.js';
export { REQUEST_METHODS, SERVER_NOTIFICATIONS, CLIENT_NOTIFICATIONS } from './lib/methods.generated.js';
export { createFileSystemBridge } from './filesystem-bridge.js';
