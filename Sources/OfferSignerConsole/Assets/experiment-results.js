// The Results panel of an experiment, from GET /v1/stats/experiments/{experimentId}: the
// verdict in words, the sample-ratio check, the users per arm (assigned, still maturing,
// analysed), and per arm against the control the difference with its always-valid interval
// over time (or, before there is a series, the current interval against zero); the report as
// the service's CSV, one row per arm, downloaded.
import { api, path } from './api.js';
import { h, replace, table, toast } from './dom.js';
import { saveFile, fileSafe, fileTime } from './download.js';
import { problemTitle } from './problems.js';
import { number, dateTime } from './format.js';
import { armMetric, axisOf, comparisonSentence, metricValue, pValueText } from './experiment-fields.js';
import { sequenceChart, intervalChart } from './experiment-charts.js';

function sampleRatioNotice(check) {
  if (!check) {
    return h('p', { class: 'notice notice-info', id: 'exp-srm' },
      'Sample ratio: not checked yet (it needs users in two arms of positive weight).');
  }
  if (check.mismatch) {
    return h('p', { class: 'notice notice-error', id: 'exp-srm', role: 'alert' },
      `Sample ratio mismatch: the arms' users do not fit their weights (p = ${pValueText(check.pValue)}, below ${check.threshold}). Assignment or recording is broken; no difference can be trusted until this is explained.`);
  }
  return h('p', { class: 'notice notice-ok', id: 'exp-srm' },
    `Sample ratio: fine. The arms' users fit their weights (p = ${pValueText(check.pValue)}; a mismatch is flagged below ${check.threshold}).`);
}

function armsTable(report) {
  return table({
    caption: 'Users per arm',
    rows: report.arms.map((arm, index) => ({ arm, index })),
    columns: [
      { label: 'Arm', class: 'col-id', value: ({ arm, index }) => [arm.armId, index === 0 ? h('span', { class: 'muted' }, ' (control)') : null] },
      { label: 'Offer', value: ({ arm }) => arm.offerId ?? h('span', { class: 'muted' }, 'no offer') },
      { label: 'Assigned', class: 'num', value: ({ arm, index }) => h('span', { title: `${number(Math.round(report.expectedAssigned[index] ?? 0))} expected from the weights` }, number(arm.assigned)) },
      { label: 'Eligible', class: 'num', value: ({ arm }) => number(arm.eligible) },
      { label: 'Signed', class: 'num', value: ({ arm }) => number(arm.signed) },
      { label: 'Redeemed', class: 'num', value: ({ arm }) => number(arm.redeemed) },
      { label: 'Still maturing', class: 'num', value: ({ arm }) => number(arm.maturing) },
      { label: 'Analysed', class: 'num', value: ({ arm }) => number(arm.matured) },
      { label: report.metric === 'revenue' ? 'Revenue per user' : 'Retained', class: 'num', value: ({ arm }) => armMetric(arm, report.metric) },
    ],
  });
}

function comparisonBlock(comparison, report, index) {
  const format = value => metricValue(value, comparison.currency, { signed: true });
  const axis = axisOf(comparison.currency);
  const label = `${comparison.armId} against ${comparison.controlArmId}${comparison.currency ? ` (${comparison.currency})` : ''}`;
  const sentence = h('p', { class: ['comparison-sentence', comparison.established && 'comparison-established'] },
    comparisonSentence(comparison, report.metric, report.level));
  let chart;
  if (comparison.sequence.length >= 2) {
    chart = sequenceChart({ title: `${label}: the difference and its always-valid interval over time`, points: comparison.sequence, format, axisFormat: axis.format, unit: axis.unit,
      limits: comparison.currency ? null : [-1, 1] });
  } else if (comparison.difference !== null) {
    chart = intervalChart({ title: `${label}: the current interval`, format, axisFormat: axis.format, unit: axis.unit, rows: [{ label: 'Now', ...comparison }] });
  } else {
    chart = null;
  }
  return h('section', { class: 'comparison', id: `exp-comparison-${index}`, 'aria-label': label },
    h('h3', null, label),
    sentence,
    chart);
}

/** A panel that loads and shows the report of `experiment` ({experimentId, bundleId}). */
export function resultsPanel(experiment, { environments = ['Production'] } = {}) {
  const environment = h('select', { id: 'exp-environment' }, environments.map(name => h('option', { value: name, selected: name === 'Production' }, name)));
  const refresh = h('button', { type: 'button', class: 'button', onclick: () => load() }, 'Refresh');
  const download = h('button', { type: 'button', class: 'button', id: 'exp-download-csv', onclick: () => downloadCSV() }, 'Download CSV');
  const body = h('div', { class: 'results-body', 'aria-live': 'polite' }, h('p', { class: 'loading' }, 'Loading…'));
  const panel = h('section', { class: 'panel experiment-results', id: 'results', 'aria-labelledby': 'results-title' },
    h('h2', { id: 'results-title' }, 'Results'),
    h('p', { class: 'muted' }, 'Users count in the arm they were assigned, whether or not they were eligible or signed. A user is analysed once their horizon has passed. The intervals stay valid however often you look, so watching every day does not invent differences.'),
    h('div', { class: 'toolbar' },
      environments.length > 1 ? h('div', { class: 'field field-inline' }, h('label', { for: 'exp-environment' }, 'History'), environment) : null,
      refresh, download),
    body);
  environment.addEventListener('change', () => load());

  /** The service's CSV of the report (one row per arm, the control first), saved by the browser. */
  async function downloadCSV() {
    download.disabled = true;
    download.textContent = 'Preparing CSV…';
    try {
      const text = await api('GET', path('/v1/stats/experiments', experiment.experimentId),
        { params: { bundleId: experiment.bundleId, environment: environment.value, format: 'csv' }, accept: 'text/csv' });
      saveFile(`experiment-${fileSafe(experiment.experimentId)}-${fileSafe(environment.value)}-${fileTime()}.csv`, [text], 'text/csv');
      toast(`Downloaded the report of ${experiment.experimentId} as CSV.`, 'success');
    } catch (error) {
      if (error.status === 401) throw error;
      toast(`The CSV could not be made: ${problemTitle(error)}. ${error.message}`, 'error');
    } finally {
      download.disabled = false;
      download.textContent = 'Download CSV';
    }
  }

  async function load() {
    replace(body, h('p', { class: 'loading' }, 'Loading…'));
    let report;
    try {
      report = await api('GET', path('/v1/stats/experiments', experiment.experimentId), { params: { bundleId: experiment.bundleId, environment: environment.value } });
    } catch (error) {
      if (error.status === 401) throw error;
      replace(body, h('p', { class: 'notice notice-error', role: 'alert' }, `The results could not be read: ${error.message}`));
      return;
    }
    draw(report);
  }

  function draw(report) {
    const maturing = report.arms.reduce((sum, arm) => sum + arm.maturing, 0);
    const matured = report.arms.reduce((sum, arm) => sum + arm.matured, 0);
    const assigned = report.arms.reduce((sum, arm) => sum + arm.assigned, 0);
    const drawn = report.comparisons.filter(c => c.difference !== null);
    replace(body,
      h('p', { class: ['verdict-words', report.comparisons.some(c => c.established) ? 'verdict-established' : null], id: 'exp-verdict' }, report.verdict),
      sampleRatioNotice(report.sampleRatio),
      h('div', { class: 'kpis' },
        h('div', { class: 'kpi' }, h('span', { class: 'kpi-value', id: 'exp-assigned' }, number(assigned)), h('span', { class: 'kpi-label' }, 'users assigned')),
        h('div', { class: 'kpi' }, h('span', { class: 'kpi-value', id: 'exp-maturing' }, number(maturing)), h('span', { class: 'kpi-label' }, `still maturing (under ${report.horizonDays} days)`)),
        h('div', { class: 'kpi' }, h('span', { class: 'kpi-value', id: 'exp-matured' }, number(matured)), h('span', { class: 'kpi-label' }, 'analysed'))),
      armsTable(report),
      drawn.length > 1 && new Set(drawn.map(c => c.currency)).size === 1 ? h('div', { class: 'comparison' },
        h('h3', null, 'Every arm against the control, now'),
        intervalChart({ title: 'Every arm against the control, now', rows: report.comparisons.map(c => ({ label: `${c.armId}${c.currency ? ` (${c.currency})` : ''}`, ...c })),
          format: value => metricValue(value, drawn[0].currency, { signed: true }), axisFormat: axisOf(drawn[0].currency).format, unit: axisOf(drawn[0].currency).unit })) : null,
      report.comparisons.map((comparison, index) => comparisonBlock(comparison, report, index)),
      h('p', { class: 'muted' }, `Each interval is at ${(100 * report.level).toFixed(report.level * 100 % 1 ? 1 : 0)}% (α = ${report.alpha} shared among ${report.comparisonCount} comparison${report.comparisonCount === 1 ? '' : 's'}), tuned for ${number(report.tuningSampleSize)} users. ${report.environment} history, as of ${dateTime(report.generatedAt)}.`));
  }

  load();
  return panel;
}
