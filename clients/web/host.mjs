#!/usr/bin/env node
// The web front end's host process: spawns `workspace-bridge serve`, initializes it, and
// serves one page on 127.0.0.1 that talks to the server through this process.
//
//   node clients/web/host.mjs [--port N] [--bin PATH] [--app DIR] [--quiet] [-- SERVER ARGS...]
//
// `--app DIR` also serves the folder DIR, unchanged, at /app/ (a front end of your own that
// includes <script src="/atome-filesystem.js"></script>).
// `--port 0` picks a free port. The URL is printed on stdout as
// `Open http://127.0.0.1:N/?token=SECRET` once the server answered `initialize`: the secret is
// new on every start and is what admits a browser (access.mjs); nothing is served without it. Arguments after `--` go to `workspace-bridge serve`
// (e.g. `--local-root DIR --cloud-root DIR --config-dir DIR`). SIGINT/SIGTERM shut the server
// down cleanly; if the server exits, the host exits with status 1.
import { statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { AccessGate } from './access.mjs';
import { Bridge, defaultBinary } from './bridge.mjs';
import { makeHandler } from './routes.mjs';

export const defaultPort = 8377;

/**
 * What the server this host starts withholds (`serve --deny`): the page's requests and the host's
 * share one connection, so the server refuses these by capability to both, whatever the name or
 * route (`workspace/executeCommand wsb.importFile`, a tool call) a request takes. Host paths stay
 * on the host, `debug/*` stays with tests, and the page cannot end the server: the host ends it by
 * closing its input (`Bridge.close`; the server finishes what runs and exits 0).
 */
export const deniedToPage = ['host-paths', 'debugging', 'lifecycle'];

/**
 * Starts the server child and the HTTP host; resolves once both are ready.
 *
 * `url` is the host's root (`http://127.0.0.1:N/`, for building addresses); `openUrl` (and
 * `appUrl` with `--app`) are the addresses a person opens, with this run's secret; `cookie` is
 * the `Cookie` header value a script sends instead (tests, `curl -b`).
 * @param {{port?: number, binary?: string, serverArgs?: string[], quiet?: boolean, appDir?: string|null}} options
 * @returns {Promise<{url: string, openUrl: string, appUrl: string|null, cookie: string, port: number, bridge: Bridge,
 *   initialize: object, close: () => Promise<void>, closing: boolean}>}
 */
export async function startHost({ port = defaultPort, binary = defaultBinary(), serverArgs = [], quiet = false, appDir = null } = {}) {
  if (appDir) {
    let isDir = false;
    try { isDir = statSync(appDir).isDirectory(); } catch { /* reported below */ }
    if (!isDir) throw new Error(`--app ${appDir} is not a folder`);
  }
  const bridge = new Bridge({ binary, args: ['--deny', deniedToPage.join(','), ...serverArgs], quiet });
  const init = await bridge.call('initialize', {
    processId: process.pid,
    clientInfo: { name: 'workspace-bridge-web', version: '0.1.0' },
    capabilities: { workspace: { didChangeFiles: true } },
  });
  bridge.notify('initialized', {});

  // The handler needs the port (allowed Host headers, the cookie's name): it is made once the
  // socket listens, before the first request can be read.
  let handler = null;
  const server = http.createServer((req, res) => handler(req, res));
  try {
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
  } catch (error) {
    await bridge.close();
    throw error;
  }
  const actualPort = server.address().port;
  const gate = new AccessGate({ port: actualPort });
  handler = makeHandler({
    bridge, hello: { initialize: init, binary }, appDir, gate,
    allowedHosts: new Set([`127.0.0.1:${actualPort}`, `localhost:${actualPort}`]),
  });

  let closing = null;
  const close = () => {
    closing ??= (async () => {
      handler?.close();
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
      await bridge.close();
    })();
    return closing;
  };
  const url = `http://127.0.0.1:${actualPort}/`;
  return {
    url, openUrl: gate.urlFor(url), cookie: gate.cookie, port: actualPort, bridge, initialize: init, close,
    appUrl: appDir ? gate.urlFor(url, '/app/') : null,
    get closing() { return closing !== null; },
  };
}

/** Parses `[--port N] [--bin PATH] [--app DIR] [--quiet] [-- server args]`. */
export function parseHostArgs(argv) {
  const options = { port: defaultPort, binary: defaultBinary(), serverArgs: [], quiet: false, appDir: null };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      options.serverArgs.push(...argv.slice(i + 1));
      break;
    } else if (arg === '--port') {
      options.port = Number(argv[++i]);
      if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) throw new Error('--port needs 0..65535');
    } else if (arg === '--bin') {
      options.binary = argv[++i];
    } else if (arg === '--app') {
      if (argv[i + 1] === undefined) throw new Error('--app needs a folder');
      options.appDir = path.resolve(argv[++i]);
    } else if (arg === '--quiet') {
      options.quiet = true;
    } else {
      throw new Error(`unknown option ${arg} (server options go after --)`);
    }
  }
  return options;
}

/** Stops the host on SIGINT/SIGTERM and exits when the server process dies. */
export function runUntilStopped(host) {
  const stop = async () => {
    await host.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  host.bridge.onExit((status) => {
    if (host.closing) return;
    console.error(`workspace-bridge exited (${JSON.stringify(status)}); stopping the web host`);
    process.exit(1);
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const host = await startHost(parseHostArgs(process.argv.slice(2)));
    runUntilStopped(host);
    console.log(`WorkspaceBridge web: workspace ${host.initialize.capabilities.workspace.root}`);
    console.log(`Open ${host.openUrl}`);
    if (host.appUrl) console.log(`Your front end: ${host.appUrl}`);
  } catch (error) {
    console.error(`web host: ${error.message}`);
    process.exit(1);
  }
}
