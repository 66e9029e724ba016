// Who may use the web host: whoever holds this run's secret.
//
// The host makes a fresh secret (32 random bytes) each time it starts and prints it in the URL
// it shows (`http://127.0.0.1:N/?token=…`). The first visit with that URL trades the secret for
// a cookie (HttpOnly, SameSite=Strict, Path=/) and is sent on to the same address without
// it, so the secret leaves the address bar and history. Every other request must carry the
// cookie; nothing is served without it. Other local accounts (and pages on other sites) can
// reach 127.0.0.1 but cannot read this user's terminal or browser profile, so they cannot
// drive the workspace. Secrets are compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The query parameter of the URL the host prints. */
export const tokenParameter = 'token';

const digest = (text) => createHash('sha256').update(text, 'utf8').digest();

/** True when `candidate` is `secret`, in time independent of where they differ (or their lengths). */
export function sameSecret(candidate, secret) {
  return typeof candidate === 'string' && timingSafeEqual(digest(candidate), digest(secret));
}

/**
 * The per-run secret and what it admits.
 *
 * Guarantees: `admit` passes a request only when it carries the secret, as the cookie or (for a
 * GET, which then sets the cookie and moves on to the address without it) as `?token=`; a wrong or missing secret is
 * refused. The cookie's name carries the port, because browsers share 127.0.0.1's cookies
 * between ports: two hosts on one machine do not overwrite each other's cookie.
 */
export class AccessGate {
  /** @param {{port: number, secret?: string}} options */
  constructor({ port, secret = randomBytes(32).toString('base64url') }) {
    this.secret = secret;
    this.cookieName = `workspace-bridge-${port}`;
  }

  /** The `Cookie` header value that admits a script (tests, curl `-b`). */
  get cookie() {
    return `${this.cookieName}=${this.secret}`;
  }

  /** `base` (ending in `/`) + `pathname` with the secret, the address a person opens. */
  urlFor(base, pathname = '/') {
    const url = new URL(pathname, base);
    url.searchParams.set(tokenParameter, this.secret);
    return url.href;
  }

  /**
   * What to do with a request: `{pass: true}`, `{redirect, setCookie}` (the secret was in the
   * query: set the cookie, go to the same address without it), or `{pass: false}`.
   * @param {import('node:http').IncomingMessage} req
   * @param {URL} url the request's URL
   */
  admit(req, url) {
    if (url.searchParams.has(tokenParameter)) {
      if (req.method !== 'GET' || !sameSecret(url.searchParams.get(tokenParameter), this.secret)) return { pass: false };
      const clean = new URL(url);
      clean.searchParams.delete(tokenParameter);
      return {
        redirect: `${clean.pathname}${clean.search}`,
        setCookie: `${this.cookie}; HttpOnly; SameSite=Strict; Path=/`,
      };
    }
    return { pass: this.cookieValues(req).some((value) => sameSecret(value, this.secret)) };
  }

  /** The values of this gate's cookie in the request (a browser may send more than one). */
  cookieValues(req) {
    const values = [];
    for (const part of (req.headers.cookie ?? '').split(';')) {
      const at = part.indexOf('=');
      if (at > 0 && part.slice(0, at).trim() === this.cookieName) values.push(part.slice(at + 1).trim());
    }
    return values;
  }
}
