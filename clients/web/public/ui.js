// Small DOM helpers shared by the views: element building, formatting, toasts, dialogs.

/** Builds an element: `h('button.btn.primary', {onclick}, 'Save')`. Strings become text nodes. */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split('.');
  const el = document.createElement(tag || 'div');
  if (classes.length) el.className = classes.join(' ');
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** `1536` → `1.5 KB`. */
export function formatBytes(bytes) {
  if (bytes === null || bytes === undefined) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** An ISO timestamp as a short local date and time. */
export function formatTime(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleDateString([], { year: 'numeric', month: 'short', day: 'numeric' });
}

export function formatUSD(value) {
  return `$${(value ?? 0).toFixed(value < 0.01 && value > 0 ? 4 : 2)}`;
}

/** Shows a short message at the bottom right; `kind` is info, success or error. */
export function toast(message, kind = 'info') {
  const el = h(`div.toast.${kind}`, { role: kind === 'error' ? 'alert' : 'status' }, message);
  const toasts = document.getElementById('toasts');
  toasts.append(el);
  while (toasts.children.length > 3) toasts.firstElementChild.remove();
  setTimeout(() => el.classList.add('leaving'), 3800);
  setTimeout(() => el.remove(), 4200);
}

/**
 * Opens the shared modal. `fields` are text inputs ({name, label, value}); resolves with the
 * values object when confirmed, `{alternate: true}` for the optional `alternate` button, or
 * null when cancelled.
 */
export function ask({ title, message, fields = [], confirm = 'OK', danger = false, alternate = null }) {
  const modal = document.getElementById('modal');
  return new Promise((resolve) => {
    const inputs = fields.map((field) => h('input', { name: field.name, value: field.value ?? '', autocomplete: 'off', spellcheck: 'false' }));
    const form = h('form.modal-body', { method: 'dialog' },
      h('h2', {}, title),
      message ? h('p.muted', {}, message) : null,
      fields.map((field, i) => h('label.field', {}, h('span', {}, field.label), inputs[i])),
      h('div.actions.end', {},
        h('button.btn', { type: 'button', value: 'cancel', onclick: () => modal.close('cancel') }, 'Cancel'),
        alternate ? h('button.btn', { type: 'button', id: 'modal-alternate', onclick: () => modal.close('alternate') }, alternate) : null,
        h(`button.btn.${danger ? 'danger' : 'primary'}`, { type: 'submit', value: 'ok', id: 'modal-confirm' }, confirm)));
    modal.replaceChildren(form);
    modal.onclose = () => {
      if (modal.returnValue === 'alternate') resolve({ alternate: true });
      else if (modal.returnValue === 'ok') resolve(Object.fromEntries(fields.map((field, i) => [field.name, inputs[i].value.trim()])));
      else resolve(null);
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      modal.close('ok');
    });
    modal.returnValue = '';
    modal.showModal();
    const first = inputs[0];
    if (first) {
      first.focus();
      const dot = first.value.lastIndexOf('.');
      first.setSelectionRange(0, dot > 0 ? dot : first.value.length);
    }
  });
}

/** The error's message for people, with the server's code when it says more. */
export function describeError(error) {
  return error.code && error.code !== 'InternalError' ? `${error.message} (${error.code})` : error.message;
}
