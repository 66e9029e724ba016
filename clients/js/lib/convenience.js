/**
 * How schema method names become convenience methods on the client.
 *
 * Guarantees: `loadFile` becomes `client.loadFile(params, options)`, `session/create` becomes
 * `client.session.create(params, options)`; `initialize` and `shutdown` are left to the
 * client's lifecycle methods, and `$/…` methods are never exposed. The same rule is used at run
 * time (lib/client.js) and by the type generator (scripts/generate-types.mjs), so the types and
 * the object always agree.
 */

/** Requests the client drives itself (initialize then initialized; shutdown then exit). */
export const LIFECYCLE_METHODS = Object.freeze(['initialize', 'shutdown']);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * @param {readonly string[]} requestMethods request method names, in schema order
 * @returns {{method: string, path: string[]}[]}
 */
export function convenienceTable(requestMethods) {
  const table = [];
  const seen = new Map();
  for (const method of requestMethods) {
    if (LIFECYCLE_METHODS.includes(method) || method.startsWith('$/')) continue;
    const path = method.split('/');
    if (path.length > 2 || !path.every((segment) => IDENTIFIER.test(segment))) {
      throw new Error(`no convenience name for method ${JSON.stringify(method)}`);
    }
    // A name cannot be both a method and a namespace.
    const key = path.join('.');
    const head = path[0];
    if (seen.has(key) || (path.length === 1 && seen.get(head) === 'namespace') || (path.length === 2 && seen.get(head) === 'method')) {
      throw new Error(`convenience name ${key} collides with another method`);
    }
    seen.set(key, 'method');
    if (path.length === 2) seen.set(head, 'namespace');
    else seen.set(head, 'method');
    table.push({ method, path });
  }
  return table;
}
