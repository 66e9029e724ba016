// Headless Chromium driven through the DevTools protocol: launch, one page, real mouse clicks
// and typing (Input domain), DOM queries by evaluation, waits, and PNG screenshots.
// Guarantees: `close()` ends the browser process it started and removes its profile folder;
// uncaught page exceptions and console errors are collected in `page.errors`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CDP } from './cdp.mjs';

/** The Chromium binary: `$CHROMIUM`, else `chromium` on PATH. */
export const chromiumBinary = process.env.CHROMIUM || 'chromium';

export async function launchBrowser({ width = 1360, height = 860 } = {}) {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'wb-web-chromium-'));
  const args = [
    '--headless=new', '--remote-debugging-port=0', `--user-data-dir=${profile}`,
    '--no-first-run', '--no-default-browser-check', '--disable-gpu', '--disable-dev-shm-usage',
    '--disable-extensions', '--disable-background-networking', '--disable-sync', '--mute-audio',
    '--force-color-profile=srgb', '--hide-scrollbars', `--window-size=${width},${height}`,
  ];
  if (process.getuid?.() === 0) args.push('--no-sandbox'); // Chromium refuses to run as root otherwise
  const child = spawn(chromiumBinary, [...args, 'about:blank'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const killOnExit = () => child.kill('SIGKILL'); // never leave a browser behind a test run that dies
  process.once('exit', killOnExit);

  let endpoint = null;
  for (let waited = 0; !endpoint; waited += 50) {
    if (child.exitCode !== null) throw new Error(`chromium exited: ${stderr}`);
    if (waited > 20000) {
      child.kill('SIGKILL');
      throw new Error(`chromium did not open DevTools: ${stderr}`);
    }
    try {
      const [port, wsPath] = readFileSync(path.join(profile, 'DevToolsActivePort'), 'utf8').trim().split('\n');
      if (port && wsPath) endpoint = `ws://127.0.0.1:${port}${wsPath}`;
    } catch {
      // not written yet
    }
    if (!endpoint) await sleep(50);
  }
  const cdp = await CDP.connect(endpoint);
  const { targetId } = await cdp.send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: true });
  const page = new Page(cdp, sessionId);
  await page.send('Page.enable');
  await page.send('Runtime.enable');
  await page.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
  await page.send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: 'light' }] });

  const close = async () => {
    try {
      await Promise.race([cdp.send('Browser.close'), sleep(2000)]);
    } catch {
      // already closing
    }
    cdp.close();
    if (child.exitCode === null) {
      const killer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(killer);
    }
    process.removeListener('exit', killOnExit);
    rmSync(profile, { recursive: true, force: true });
  };
  return { page, close };
}

export class Page {
  constructor(cdp, sessionId) {
    this.cdp = cdp;
    this.sessionId = sessionId;
    this.errors = [];
    cdp.on('Runtime.exceptionThrown', ({ exceptionDetails }, message) => {
      if (message.sessionId === sessionId) this.errors.push(exceptionDetails.exception?.description ?? exceptionDetails.text);
    });
    cdp.on('Runtime.consoleAPICalled', ({ type, args }, message) => {
      if (message.sessionId === sessionId && type === 'error') this.errors.push(args.map((a) => a.value ?? a.description).join(' '));
    });
  }

  send(method, params) {
    return this.cdp.send(method, params, this.sessionId);
  }

  /** Navigates and waits for the load event, following a page that refreshes to another
   *  address at once (the host's printed address sets its cookie that way) to its load. */
  async goto(url) {
    const loaded = new Promise((resolve) => this.cdp.on('Page.loadEventFired', (_, m) => m.sessionId === this.sessionId && resolve()));
    await this.send('Page.navigate', { url });
    await loaded;
    await this.waitFor(`document.readyState === 'complete' && !document.querySelector('meta[http-equiv="refresh"]')`,
      { what: `${url} loaded, past any refresh` });
  }

  /** Evaluates `expression` in the page (promises awaited); returns its JSON value. */
  async eval(expression) {
    const { result, exceptionDetails } = await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (exceptionDetails) throw new Error(`page threw: ${exceptionDetails.exception?.description ?? exceptionDetails.text}\n  in: ${expression}`);
    return result.value;
  }

  /** Polls `expression` until it is truthy; returns its value. An evaluation that a navigation
   *  cut short (the document it ran in went away) counts as not yet. */
  async waitFor(expression, { timeout = 10000, what = expression } = {}) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const value = await this.eval(expression).catch((error) => {
        if (/context was destroyed|Cannot find context|navigated or closed/i.test(error.message)) return null;
        throw error;
      });
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for: ${what}`);
      await sleep(40);
    }
  }

  /** The text of the first element matching `selector`, or null. */
  text(selector) {
    return this.eval(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`);
  }

  /** Clicks the centre of the first visible element matching `selector` with real mouse events. */
  async click(selector) {
    const box = await this.waitFor(`(() => {
      const el = document.querySelector(${JSON.stringify(selector)});
      if (!el) return null;
      el.scrollIntoView({ block: 'center', inline: 'center' });
      const r = el.getBoundingClientRect();
      return r.width && r.height ? { x: r.x + r.width / 2, y: r.y + r.height / 2 } : null;
    })()`, { what: `a visible ${selector}` });
    await this.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x: box.x, y: box.y });
    await this.send('Input.dispatchMouseEvent', { type: 'mousePressed', x: box.x, y: box.y, button: 'left', clickCount: 1 });
    await this.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x: box.x, y: box.y, button: 'left', clickCount: 1 });
  }

  /** Focuses `selector`, optionally selects all of its text, and types `text` (input events fire). */
  async type(selector, text, { replace = false } = {}) {
    await this.click(selector);
    if (replace) await this.eval(`document.querySelector(${JSON.stringify(selector)}).select()`);
    await this.send('Input.insertText', { text });
  }

  /** Presses a key such as Enter. */
  async press(key, code = key) {
    const keyCode = { Enter: 13, Escape: 27 }[key];
    await this.send('Input.dispatchKeyEvent', { type: 'keyDown', key, code, windowsVirtualKeyCode: keyCode, text: key === 'Enter' ? '\r' : undefined });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', key, code, windowsVirtualKeyCode: keyCode });
  }

  /** Writes a PNG of the viewport to `file`. */
  async screenshot(file) {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png' });
    writeFileSync(file, Buffer.from(data, 'base64'));
  }
}
