// Shared by the web front end's browser tests: calls through the host process and view switching.

/** Calls `method` through the host's `/rpc` endpoint (what the page itself uses, with the
 *  run's secret as the page's cookie) and returns its result; an error answer throws, with the
 *  server's `error.data` as `data`. */
export async function hostRpc(host, method, params = {}) {
  const res = await fetch(new URL('/rpc', host.url), {
    method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: host.cookie },
    body: JSON.stringify({ id: `test-${Math.random()}`, method, params }),
  });
  const body = await res.json();
  if (body.error) throw Object.assign(new Error(`${method}: ${body.error.message}`), { data: body.error.data });
  return body.result;
}

/** Clicks the navigation item of `view` and waits until that view shows. */
export async function showView(page, view) {
  await page.click(`.nav-item[data-view="${view}"]`);
  await page.waitFor(`!document.getElementById('view-${view}').hidden`);
}
