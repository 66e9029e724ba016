// The host's HTTP surface: the page's three files, JSON-RPC relay, cancel, and the event
// stream. Built on `node:http` only.
//
//   GET  /               index.html; /<name>.js|.css|.svg: the other files of public/ (flat)
//   GET  /atome-filesystem.js  the seeds' `window.AtomeFileSystem` as a classic script
//   GET  /app/…          the folder given with `--app DIR`, as it is (nothing injected)
//   GET  /api/hello      {initialize: <the server's initialize result>, binary}
//   POST /rpc            {id, method, params?} -> the JSON-RPC response, with the page's id
//   POST /cancel         {id}                  -> $/cancelRequest for that in-flight request
//   GET  /events         Server-Sent Events: every server notification, one `data:` each;
//                        `event: bridge-exit` when the server process ends
//
// Guarantees: requests whose Host header is not this loopback address are refused (403), so
// a web page on another origin cannot reach the workspace through DNS rebinding; every other
// request needs this run's secret (access.mjs: the cookie, or `?token=` once, then a refresh),
// else 401 and nothing else; POSTs must be `application/json` from this origin (no form posts
// from other sites). What a relayed request may reach is the server's to refuse, by capability:
// the host starts it with `--deny host-paths,debugging,lifecycle` (host.mjs), so no name or
// route (`workspace/executeCommand`, a tool call) reaches host paths, debugging or the
// lifecycle; a second `initialize` is refused by the lifecycle itself. Every response forbids framing (`frame-ancestors 'none'`,
// `X-Frame-Options: DENY`), MIME sniffing, referrers and cross-origin embedding. `/app/` serves
// only regular files inside DIR whose path has no dot-name (no `..`, no `.git/`, no `.env`, no
// link leading out of DIR or to such a name).
import { readdirSync, readFileSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const publicDir = path.join(here, 'public');

const contentTypes = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The page's files: a flat folder, names of letters, digits and dashes only (no traversal). */
const staticFiles = Object.fromEntries(
  readdirSync(publicDir)
    .filter((name) => /^[a-z0-9-]+\.(html|js|css|svg)$/.test(name))
    .map((name) => [`/${name}`, [name, contentTypes[path.extname(name)]]]),
);
staticFiles['/'] = ['index.html', contentTypes['.html']];

/**
 * `/atome-filesystem.js`: the JS client's `filesystem-bridge.js` (the seeds' bridge, one source
 * for Node and the browser) and `atome/page-glue.js`, in one function scope, so that a plain
 * `<script src>` defines `window.AtomeFileSystem` before the page's next script runs.
 */
export function atomeFileSystemScript() {
  const bridge = readFileSync(path.join(here, '..', 'js', 'filesystem-bridge.js'), 'utf8').replace(/^export function /m, 'function ');
  const glue = readFileSync(path.join(here, 'atome', 'page-glue.js'), 'utf8');
  for (const [name, source] of [['filesystem-bridge.js', bridge], ['page-glue.js', glue]]) {
    if (/^\s*(import|export)\b/m.test(source)) throw new Error(`${name} must have no imports or exports left to be served as a classic script`);
  }
  return `// WorkspaceBridge: the seeds' JavaScript file bridge for web pages (window.AtomeFileSystem).\n`
    + `// Served by clients/web/host.mjs from clients/js/filesystem-bridge.js and clients/web/atome/page-glue.js.\n`
    + `(function () {\n'use strict';\n${bridge}\n${glue}\n})();\n`;
}

const appTypes = {
  ...contentTypes, '.mjs': 'text/javascript; charset=utf-8', '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8', '.map': 'application/json; charset=utf-8', '.png': 'image/png',
  '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.ico': 'image/x-icon',
  '.wav': 'audio/wav', '.mp3': 'audio/mpeg', '.ogg': 'audio/ogg', '.wasm': 'application/wasm',
  '.woff': 'font/woff', '.woff2': 'font/woff2', '.webmanifest': 'application/manifest+json',
};

/** True when `relative` (a path inside a folder) has a name starting with `.` (`.git`, `.env`, `..`). */
const hasDotName = (relative) => relative.split(/[\\/]/).some((name) => name.startsWith('.'));

/**
 * The file of `appDir` a `/app/…` URL path names, or null: decoded segments, none starting
 * with `.` (dotfiles, dot-folders, `.` and `..`), no NUL or backslash; a folder means its
 * `index.html`; the real path (links followed) must stay inside `appDir` and have no dot-name
 * below it either.
 */
export async function resolveAppFile(appDir, urlPath) {
  let segments;
  try {
    segments = urlPath.slice('/app/'.length).split('/').map(decodeURIComponent);
  } catch {
    return null;
  }
  if (segments.some((s) => s.startsWith('.') || s.includes('\0') || s.includes('\\') || s.includes('/'))) return null;
  let file = path.join(appDir, ...segments.filter((s) => s !== ''));
  try {
    const root = await realpath(appDir);
    let real = await realpath(file);
    if ((await stat(real)).isDirectory()) {
      file = path.join(real, 'index.html');
      real = await realpath(file);
    }
    const inside = path.relative(root, real);
    if (inside === '' || path.isAbsolute(inside) || hasDotName(inside)) return null;
    return (await stat(real)).isFile() ? real : null;
  } catch {
    return null;
  }
}

const maxBodyBytes = 64 * 1024 * 1024;

/** Headers on every response: no framing by any page (clickjacking), no MIME sniffing, no
 *  referrer, no embedding by another origin (`<script src>`, `<img>`), no caching. */
const guardHeaders = {
  'Content-Security-Policy': "frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/** The host's own responses also allow only its own scripts, styles and images. */
const hostPolicy = "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:; frame-ancestors 'none'";

const htmlEntities = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text) => text.replace(/[&<>"']/g, (c) => htmlEntities[c]);

/** `res.writeHead` with the guard headers; `headers` adds to them (a page's CSP replaces the
 *  guard's, and keeps its `frame-ancestors 'none'`). */
function writeHead(res, status, headers = {}) {
  res.writeHead(status, { ...guardHeaders, ...headers });
}

function send(res, status, body, type = 'application/json; charset=utf-8') {
  const data = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  writeHead(res, status, { 'Content-Type': type, 'Content-Security-Policy': hostPolicy });
  res.end(data);
}

async function readJson(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > maxBodyBytes) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw Object.assign(new Error('body is not JSON'), { status: 400 });
  }
}

/**
 * Makes the request handler.
 * @param {{bridge: import('./bridge.mjs').Bridge, hello: object, allowedHosts: Set<string>,
 *   gate: import('./access.mjs').AccessGate, appDir?: string|null}} ctx
 */
export function makeHandler({ bridge, hello, allowedHosts, gate, appDir = null }) {
  const atomeScript = atomeFileSystemScript();
  const streams = new Set();
  bridge.onMessage((message) => {
    const data = `data: ${JSON.stringify(message)}\n\n`;
    for (const res of streams) res.write(data);
  });
  bridge.onExit((status) => {
    const data = `event: bridge-exit\ndata: ${JSON.stringify(status)}\n\n`;
    for (const res of streams) res.end(data);
    streams.clear();
  });
  const heartbeat = setInterval(() => {
    for (const res of streams) res.write(': keep-alive\n\n');
  }, 15000);
  heartbeat.unref();

  const relayId = (pageId) => `web:${typeof pageId === 'string' ? pageId : JSON.stringify(pageId)}`;

  async function rpc(req, res) {
    const body = await readJson(req);
    const { id, method, params } = body ?? {};
    if (typeof method !== 'string' || (typeof id !== 'string' && !Number.isInteger(id))) {
      return send(res, 400, { error: 'expected {id: string|integer, method: string, params?: object}' });
    }
    const sent = bridge.send(method, params, relayId(id));
    try {
      const response = await sent.response;
      send(res, 200, { ...response, id });
    } catch (error) {
      send(res, 502, { jsonrpc: '2.0', id, error: { code: -32603, message: error.message, data: { code: 'InternalError' } } });
    }
  }

  async function cancel(req, res) {
    const { id } = (await readJson(req)) ?? {};
    const serverId = relayId(id);
    const inFlight = bridge.isPending(serverId);
    if (inFlight) bridge.notify('$/cancelRequest', { id: serverId });
    send(res, 200, { cancelled: inFlight });
  }

  function events(req, res) {
    writeHead(res, 200, { 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
    res.write(': connected\n\n');
    if (bridge.exited) {
      res.end(`event: bridge-exit\ndata: ${JSON.stringify(bridge.exited)}\n\n`);
      return;
    }
    streams.add(res);
    req.on('close', () => streams.delete(res));
  }

  async function serveStatic(res, [file, type]) {
    send(res, 200, await readFile(path.join(publicDir, file)), type);
  }

  /** A file of the user's own front end, byte for byte, without the host's script and style
   *  rules (it is their page, inline scripts and all); only the guard headers (no framing). */
  async function serveApp(res, pathname) {
    const file = appDir ? await resolveAppFile(appDir, pathname) : null;
    if (!file) return send(res, 404, { error: appDir ? 'not found' : 'no --app folder is served' });
    writeHead(res, 200, { 'Content-Type': appTypes[path.extname(file).toLowerCase()] ?? 'application/octet-stream' });
    res.end(await readFile(file));
  }

  /**
   * The secret was in the address: set the cookie and go on to the same address without it.
   * A page that refreshes at once (the browser replaces its history entry), not a 303: a
   * SameSite=Strict cookie is not sent along a redirect chain that a link on another site
   * started, so a 303 would land a user who clicked the printed address in a chat on the 401.
   * The refresh is the page's own, same-origin navigation, which carries the cookie.
   */
  function enter(res, { redirect, setCookie }) {
    const target = escapeHtml(redirect);
    writeHead(res, 200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': hostPolicy, 'Set-Cookie': setCookie });
    res.end(`<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=${target}">`
      + `<title>WorkspaceBridge</title><p><a href="${target}">Continue to WorkspaceBridge</a></p>\n`);
  }

  /** The secret was missing or wrong: nothing but how to get in. */
  function refuse(res) {
    send(res, 401, 'WorkspaceBridge web: open the address the host printed when it started (it carries this run\'s secret, ?token=…).\n',
      'text/plain; charset=utf-8');
  }

  const handler = async (req, res) => {
    try {
      const url = new URL(req.url, 'http://host.invalid');
      if (!allowedHosts.has(req.headers.host ?? '')) return send(res, 403, { error: 'unexpected Host header' });
      const admitted = gate.admit(req, url);
      if (admitted.redirect) return enter(res, admitted);
      if (!admitted.pass) return refuse(res);
      if (req.method === 'GET') {
        if (staticFiles[url.pathname]) return await serveStatic(res, staticFiles[url.pathname]);
        if (url.pathname === '/atome-filesystem.js') return send(res, 200, atomeScript, contentTypes['.js']);
        if (url.pathname === '/app') {
          writeHead(res, 301, { Location: '/app/' });
          return res.end();
        }
        if (url.pathname.startsWith('/app/')) return await serveApp(res, url.pathname);
        if (url.pathname === '/api/hello') return send(res, 200, hello);
        if (url.pathname === '/events') return events(req, res);
        return send(res, 404, { error: 'not found' });
      }
      if (req.method === 'POST') {
        const origin = req.headers.origin;
        if (origin && !allowedHosts.has(origin.replace(/^http:\/\//, ''))) return send(res, 403, { error: 'cross-origin request' });
        if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return send(res, 415, { error: 'expected application/json' });
        if (url.pathname === '/rpc') return await rpc(req, res);
        if (url.pathname === '/cancel') return await cancel(req, res);
        return send(res, 404, { error: 'not found' });
      }
      send(res, 405, { error: 'method not allowed' });
    } catch (error) {
      if (!res.headersSent) send(res, error.status ?? 500, { error: error.message });
      else res.end();
    }
  };
  handler.close = () => {
    clearInterval(heartbeat);
    for (const res of streams) res.end();
    streams.clear();
  };
  return handler;
}
