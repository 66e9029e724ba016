#!/usr/bin/env node
// `make run`: starts the web front end on the embedded demo workspace and prints the URL.
//
//   node clients/web/run.mjs [--port N] [--dir DIR] [--fresh] [--bin PATH] [--template default|atome] [--app APPDIR]
//
// `--template atome` starts on the Atome demo instead (seed 002's Projects/, Exports/,
// Recordings/, Templates/; its own DIR, default `…/web-demo-atome`). `--app APPDIR` also serves
// your own front end, unchanged, at /app/ (it includes <script src="/atome-filesystem.js">).
//
// DIR (default `$XDG_DATA_HOME/workspace-bridge/web-demo`) holds `local/`, `cloud/` (a folder
// that looks like a Syncthing share, so the cloud choice is offered) and `config/`. It is
// seeded once (files, a sync conflict, two agent sessions) and kept between runs, so the
// storage choice and any migration survive restarts; `--fresh` deletes DIR first.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { defaultDemoDir, demoRoots, seedDemo, serverArgs, templates } from './demo.mjs';
import { defaultPort, runUntilStopped, startHost } from './host.mjs';
import { defaultBinary } from './bridge.mjs';

const options = { port: defaultPort, dir: null, fresh: false, binary: defaultBinary(), template: 'default', appDir: null };
const usage = 'usage: run.mjs [--port N] [--dir DIR] [--fresh] [--bin PATH] [--template default|atome] [--app APPDIR]';
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--port') options.port = Number(argv[++i]);
  else if (argv[i] === '--dir') options.dir = path.resolve(argv[++i]);
  else if (argv[i] === '--fresh') options.fresh = true;
  else if (argv[i] === '--bin') options.binary = argv[++i];
  else if (argv[i] === '--template' && templates.includes(argv[i + 1])) options.template = argv[++i];
  else if (argv[i] === '--app' && argv[i + 1]) options.appDir = path.resolve(argv[++i]);
  else {
    console.error(`${usage} (not understood: ${argv[i]}${argv[i + 1] && argv[i].startsWith('--') ? ` ${argv[i + 1]}` : ''})`);
    process.exit(2);
  }
}
options.dir ??= defaultDemoDir(options.template);
if (!existsSync(options.binary)) {
  console.error(`workspace-bridge not found at ${options.binary}: build it (swift build) or set WB_BIN`);
  process.exit(1);
}

if (options.fresh) rmSync(options.dir, { recursive: true, force: true });
const marker = path.join(options.dir, '.seeded');
const roots = demoRoots(options.dir);
try {
  const host = await startHost({
    port: options.port, binary: options.binary, serverArgs: serverArgs(roots, options.template), appDir: options.appDir,
  });
  runUntilStopped(host);
  if (!existsSync(marker)) {
    await seedDemo(host.bridge, roots, options.template);
    writeFileSync(marker, `${new Date().toISOString()}\n`);
  }
  const other = templates.find((t) => t !== options.template);
  console.log(`WorkspaceBridge web on the ${options.template === 'atome' ? 'Atome' : 'agent'} demo workspace ${options.dir}`);
  console.log(`  (the ${other === 'atome' ? 'Atome' : 'agent'} demo: make run TEMPLATE=${other}, or node clients/web/run.mjs --template ${other})`);
  if (host.appUrl) console.log(`Your front end: ${host.appUrl}`);
  console.log(`Open ${host.openUrl}   (Ctrl-C stops; the address carries this run's secret: keep it to yourself)`);
} catch (error) {
  console.error(`web: ${error.message}`);
  process.exit(1);
}
