// Device conditions: what this device reports (network, battery, Low Power Mode, heat) and the
// policy the server derives from it for agent work. Everything shown is what `host/getConditions`
// or `host/setConditions` last answered.
import { rpc } from './rpc.js';
import { describeError, h, toast } from './ui.js';

const $ = (id) => document.getElementById(id);

let onChanged = () => {};
let edited = false; // the user changed the form since it was last filled: a refresh keeps their edits

const reasonText = {
  lowBattery: 'Battery under 20% and not charging',
  lowPowerMode: 'Low Power Mode is on',
  thermal: 'The device is hot',
  offline: 'No network',
  expensiveNetwork: 'The network is metered',
  constrainedNetwork: 'Low Data Mode is on',
};
const tierText = { fast: 'Fast (smallest)', balanced: 'Balanced', powerful: 'Powerful (largest)' };

function field(label, control, hint) {
  return h('label.field.cond', {}, h('span', {}, label), control, hint ? h('small.muted', {}, hint) : null);
}

function select(id, options, value) {
  return h('select', { id }, options.map(([v, text]) => {
    const option = h('option', { value: v }, text);
    option.selected = v === value;
    return option;
  }));
}

function checkbox(id, checked) {
  const box = h('input', { type: 'checkbox', id });
  box.checked = Boolean(checked);
  return box;
}

function renderForm(c) {
  const battery = h('input', { type: 'range', id: 'cond-battery', min: '0', max: '100', step: '1', value: String(Math.round((c.batteryLevel ?? 1) * 100)) });
  const batteryOut = h('output', { id: 'cond-battery-value' }, `${battery.value}%`);
  battery.addEventListener('input', () => { batteryOut.textContent = `${battery.value}%`; });
  $('conditions-form').replaceChildren(
    field('Network', select('cond-network', [['wifi', 'Wi-Fi'], ['wired', 'Wired'], ['cellular', 'Cellular'], ['offline', 'Offline']], c.network)),
    field('Metered network', checkbox('cond-expensive', c.isExpensive), 'A cellular plan or a hotspot.'),
    field('Low Data Mode', checkbox('cond-constrained', c.isConstrained)),
    field('Battery', h('div.range', {}, battery, batteryOut)),
    field('Charging', checkbox('cond-charging', c.isCharging)),
    field('Low Power Mode', checkbox('cond-lowpower', c.isLowPowerMode)),
    field('Thermal state', select('cond-thermal', [['nominal', 'Nominal'], ['fair', 'Fair'], ['serious', 'Serious'], ['critical', 'Critical']], c.thermalState ?? 'nominal')),
    h('div.actions', {}, h('button.btn.primary', { type: 'submit', id: 'cond-apply' }, 'Apply conditions')));
}

function renderPolicy(policy) {
  const yesNo = (ok, yes, no) => h(`span.pill.${ok ? 'ok' : 'warn'}`, {}, ok ? yes : no);
  $('policy').replaceChildren(
    h('h2', {}, 'What agents may do now'),
    h('dl.facts', {},
      h('dt', {}, 'Heavy work'), h('dd', { id: 'policy-heavy' }, yesNo(!policy.deferHeavyWork, 'Runs now', 'Deferred')),
      h('dt', {}, 'Largest model'), h('dd', { id: 'policy-tier' }, tierText[policy.maxModelTier] ?? policy.maxModelTier),
      h('dt', {}, 'Network tools'), h('dd', { id: 'policy-network' }, yesNo(policy.allowNetworkTools, 'Allowed', 'Refused'))),
    policy.reasons.length
      ? h('ul.reasons', { id: 'policy-reasons' }, policy.reasons.map((r) => h('li', { dataset: { reason: r } }, reasonText[r] ?? r)))
      : h('p.muted', { id: 'policy-reasons' }, 'Nothing limits agents right now.'),
    policy.message ? h('p.banner.info', { id: 'policy-message' }, policy.message) : null);
}

function readForm() {
  const conditions = {
    network: $('cond-network').value,
    isExpensive: $('cond-expensive').checked,
    isConstrained: $('cond-constrained').checked,
    batteryLevel: Number($('cond-battery').value) / 100,
    isCharging: $('cond-charging').checked,
    isLowPowerMode: $('cond-lowpower').checked,
    thermalState: $('cond-thermal').value,
  };
  return conditions;
}

/** Reads the conditions and the policy again and redraws. */
export async function refreshDevice() {
  try {
    const { conditions, policy } = await rpc('host/getConditions');
    if (!edited) renderForm(conditions);
    renderPolicy(policy);
  } catch (error) {
    toast(`Could not read the device conditions: ${describeError(error)}`, 'error');
  }
}

export function setupDevice({ changed } = {}) {
  onChanged = changed ?? onChanged;
  for (const type of ['input', 'change']) $('conditions-form').addEventListener(type, () => { edited = true; });
  $('conditions-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const { policy } = await rpc('host/setConditions', readForm());
      edited = false;
      renderPolicy(policy);
      toast('Conditions applied', 'success');
      onChanged();
    } catch (error) {
      toast(`Could not apply the conditions: ${describeError(error)}`, 'error');
    }
  });
}
