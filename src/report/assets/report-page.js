// The report page's own script: reads the embedded JSON and draws the charts with the inlined Chart.js (global
// `Chart`). Plain ES2020 for any current browser; it only reads data and never writes HTML from it (Chart.js draws
// text on canvas), so archive text cannot inject markup here.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);
  var charts = {};
  window.memsteerReport = { data: data, charts: charts, ready: false };
  if (typeof Chart === 'undefined') {
    document.body.insertAdjacentHTML('afterbegin', '<p class="empty">The charting library did not load; charts are missing.</p>');
    return;
  }

  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.color = '#37474f';

  var COLORS = {
    accepted: '#2e7d32',
    rejected: '#c62828',
    evaluated: '#f9a825',
    best: '#1565c0',
    seed: '#90a4ae',
    storage: '#8e24aa',
    retrieval: '#ef6c00',
    answering: '#1e88e5',
    error: '#c62828',
    unattributed: '#757575',
    pass: '#cfd8dc',
    propose: '#7e57c2',
    evaluate: '#26a69a',
    tokens: '#ef6c00',
  };
  var pct = function (v) {
    return v === null || v === undefined ? null : v * 100;
  };
  var fmt = function (v) {
    return v === null || v === undefined ? '–' : v.toFixed(1) + '%';
  };

  // ── fitness over iterations ──
  (function () {
    var scored = data.programs.filter(function (p) {
      return p.score !== null;
    });
    // Candidates of one iteration are spread a little around it so they do not hide each other.
    var byIteration = {};
    scored.forEach(function (p) {
      (byIteration[p.iteration] = byIteration[p.iteration] || []).push(p);
    });
    var point = function (p) {
      var group = byIteration[p.iteration];
      var k = group.indexOf(p);
      var x = p.iteration + (group.length > 1 ? (k - (group.length - 1) / 2) * Math.min(0.12, 0.6 / group.length) : 0);
      return { x: x, y: pct(p.score), id: p.id, status: p.status, proposer: p.proposer };
    };
    var series = function (label, statuses, color, style) {
      return {
        type: 'scatter',
        label: label,
        data: scored.filter(function (p) {
          return statuses.indexOf(p.status) >= 0;
        }).map(point),
        backgroundColor: color,
        borderColor: color,
        pointStyle: style,
        pointRadius: 6,
        pointHoverRadius: 8,
      };
    };
    var datasets = [
      {
        type: 'line',
        label: 'best so far',
        data: data.bestSoFar.map(function (b) {
          return { x: b.iteration, y: pct(b.score), id: b.program };
        }),
        borderColor: COLORS.best,
        backgroundColor: COLORS.best,
        stepped: 'after',
        pointRadius: 0,
        borderWidth: 2,
      },
      series('accepted', ['accepted'], COLORS.accepted, 'circle'),
      series('rejected', ['rejected'], COLORS.rejected, 'crossRot'),
    ];
    var undecided = series('evaluated, undecided', ['evaluated'], COLORS.evaluated, 'triangle');
    if (undecided.data.length) datasets.push(undecided);
    var last = Math.max(0, data.summary.lastIteration);
    charts.fitness = new Chart(document.getElementById('chart-fitness'), {
      type: 'scatter',
      data: { datasets: datasets },
      options: {
        scales: {
          x: {
            type: 'linear',
            min: -0.5,
            max: last + 0.5,
            title: { display: true, text: 'iteration' },
            // The half-step margins keep edge points off the frame; ticks go on whole iterations only.
            afterBuildTicks: function (axis) {
              var ticks = [];
              for (var i = 0; i <= last; i++) ticks.push({ value: i });
              axis.ticks = ticks;
            },
          },
          y: { title: { display: true, text: 'validation fitness (%)' }, ticks: { callback: function (v) { return v + '%'; } } },
        },
        plugins: {
          tooltip: {
            callbacks: {
              label: function (ctx) {
                var r = ctx.raw;
                return (r.id || '') + ': ' + fmt(r.y) + (r.proposer ? ' (' + r.proposer + ')' : '');
              },
            },
          },
        },
      },
    });
  })();

  // ── failure categories per iteration ──
  (function () {
    var bars = data.failures.bars;
    var datasets = data.failures.categories.map(function (c) {
      return {
        label: c,
        data: bars.map(function (b) {
          return b.counts ? b.counts[c] || 0 : null;
        }),
        backgroundColor: COLORS[c] || '#9e9e9e',
        stack: 'diagnosis',
      };
    });
    charts.failures = new Chart(document.getElementById('chart-failures'), {
      type: 'bar',
      data: {
        labels: bars.map(function (b) {
          return String(b.iteration);
        }),
        datasets: datasets,
      },
      options: {
        scales: {
          x: { stacked: true, title: { display: true, text: 'iteration' } },
          y: { stacked: true, title: { display: true, text: 'training questions' }, beginAtZero: true },
        },
        plugins: {
          tooltip: {
            mode: 'index',
            callbacks: {
              footer: function (items) {
                var b = bars[items[0].dataIndex];
                return b.program ? 'diagnosis of ' + b.program : 'no diagnosis';
              },
            },
          },
        },
      },
    });
  })();

  // ── final scores per category ──
  ['val', 'test'].forEach(function (split) {
    var canvas = document.getElementById('chart-scores-' + split);
    if (!canvas) return;
    var entries = data.scores.entries.filter(function (e) {
      return e.split === split;
    });
    var metric = data.scores.metric;
    var categories = [];
    entries.forEach(function (e) {
      Object.keys(e.perCategory).forEach(function (c) {
        if (categories.indexOf(c) < 0) categories.push(c);
      });
    });
    categories.sort();
    var seen = {};
    var same = entries.length === 2 && entries[0].program === entries[1].program;
    var datasets = entries
      .filter(function (e) {
        // The seed can be the best program: draw it once.
        if (seen[e.program]) return false;
        seen[e.program] = true;
        return true;
      })
      .map(function (e) {
        return {
          label: (same ? 'seed = best' : e.role) + ' ' + e.program,
          data: categories.map(function (c) {
            return e.perCategory[c] ? pct(e.perCategory[c][metric]) : null;
          }).concat([pct(e.overall[metric])]),
          backgroundColor: e.role === 'best' || same ? COLORS.best : COLORS.seed,
        };
      });
    charts['scores-' + split] = new Chart(canvas, {
      type: 'bar',
      data: { labels: categories.concat(['all']), datasets: datasets },
      options: {
        scales: { y: { beginAtZero: true, suggestedMax: 100, ticks: { callback: function (v) { return v + '%'; } } } },
        plugins: {
          tooltip: {
            callbacks: {
              label: function (ctx) {
                return ctx.dataset.label + ': ' + fmt(ctx.raw);
              },
            },
          },
        },
      },
    });
  });

  // ── cost per iteration ──
  (function () {
    var rows = data.cost.perIteration;
    var anyTokens = rows.some(function (r) {
      return r.tokens > 0;
    });
    var datasets = [
      {
        type: 'bar',
        label: 'proposing (s)',
        data: rows.map(function (r) { return r.proposeMs / 1000; }),
        backgroundColor: COLORS.propose,
        stack: 'time',
        yAxisID: 'y',
      },
      {
        type: 'bar',
        label: 'evaluating (s)',
        data: rows.map(function (r) { return r.evaluateMs / 1000; }),
        backgroundColor: COLORS.evaluate,
        stack: 'time',
        yAxisID: 'y',
      },
    ];
    var scales = {
      x: { stacked: true, title: { display: true, text: 'iteration' } },
      y: { stacked: true, beginAtZero: true, title: { display: true, text: 'wall time (s)' } },
    };
    if (anyTokens) {
      datasets.push({
        type: 'line',
        label: 'LLM tokens',
        data: rows.map(function (r) { return r.tokens; }),
        borderColor: COLORS.tokens,
        backgroundColor: COLORS.tokens,
        yAxisID: 'tokens',
      });
      scales.tokens = { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false }, title: { display: true, text: 'tokens' } };
    }
    charts.cost = new Chart(document.getElementById('chart-cost'), {
      type: 'bar',
      data: { labels: rows.map(function (r) { return String(r.iteration); }), datasets: datasets },
      options: { scales: scales },
    });
  })();

  window.memsteerReport.ready = true;
})();
