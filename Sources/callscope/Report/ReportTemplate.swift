// The report page: HTML, CSS and a small script of ours that draws the charts as inline SVG.
// No network, no library: the page works from a mail attachment. The data arrives as JSON in
// the `callscope-data` script element.

enum ReportTemplate {
    static func escapeHTML(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static let page = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__CALLSCOPE_TITLE__</title>
<style>
  :root { --text:#1d2330; --muted:#667085; --grid:#eaecf0; --panel:#ffffff; --bg:#f5f6f8; }
  * { box-sizing: border-box; }
  body { margin:0; padding:20px 28px 40px; font:13px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color:var(--text); background:var(--bg); }
  h1 { font-size:20px; margin:0 0 4px; }
  h2 { font-size:14px; margin:0 0 8px; }
  .meta { color:var(--muted); margin-bottom:14px; }
  .panel { background:var(--panel); border:1px solid #e4e7ec; border-radius:8px; padding:12px 14px; margin-bottom:14px; }
  .cards { display:flex; flex-wrap:wrap; gap:10px; margin-bottom:10px; }
  .card { background:#f9fafb; border:1px solid #eaecf0; border-radius:6px; padding:6px 12px; min-width:110px; }
  .card b { display:block; font-size:17px; }
  .card span { color:var(--muted); font-size:11px; }
  table { border-collapse:collapse; width:100%; font-variant-numeric: tabular-nums; }
  th, td { text-align:right; padding:3px 8px; border-bottom:1px solid var(--grid); white-space:nowrap; }
  th:first-child, td:first-child, th.l, td.l { text-align:left; }
  th { color:var(--muted); font-weight:600; font-size:11px; }
  .chip { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:4px; vertical-align:-1px; }
  .split > div { overflow-x:auto; }
  .split > div + div { margin-top:12px; }
  .worst li { margin:2px 0; }
  .legend { display:flex; flex-wrap:wrap; gap:4px 14px; margin-top:4px; font-size:12px; }
  .legend span { cursor:pointer; user-select:none; }
  .legend span.off { opacity:.35; }
  .swatch { display:inline-block; width:18px; height:0; border-top:2px solid; margin-right:5px; vertical-align:3px; }
  .swatch.dashed { border-top-style:dashed; }
  svg { display:block; width:100%; overflow:visible; }
  svg text { font-size:11px; fill:#475467; }
  .tip { position:fixed; pointer-events:none; background:rgba(29,35,48,.94); color:#fff; padding:6px 8px; border-radius:5px; font-size:12px; display:none; z-index:10; max-width:420px; }
  .tip div { white-space:nowrap; }
  .events td { text-align:left; white-space:normal; }
  .problems { color:#b42318; }
  .empty { color:var(--muted); font-style:italic; }
</style>
</head>
<body>
<h1 id="title"></h1>
<div class="meta" id="meta"></div>
<div class="panel" id="summary"></div>
<div class="panel"><h2>Network condition and degradation source</h2><div id="bands"></div><div class="legend" id="band-legend"></div></div>
<div id="charts"></div>
<div class="panel"><h2>Quality events, freezes and pauses</h2><div id="events"></div></div>
<div class="tip" id="tip"></div>
<script id="callscope-data" type="application/json">__CALLSCOPE_DATA__</script>
<script>
(function () {
  'use strict';
  var failures = [];
  window.addEventListener('error', function (e) { failures.push(String(e.message)); document.body.setAttribute('data-render', 'error: ' + failures.join('; ')); });
  var D = JSON.parse(document.getElementById('callscope-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var CONDITION = { excellent:'#1a9850', good:'#91cf60', fair:'#fee08b', warning:'#fc8d59', critical:'#d73027', unknown:'#d0d5dd' };
  var SOURCE = { none:'#c7e9c0', local:'#fd8d3c', remote:'#6baed6', bothOrUnclear:'#9e4ac8', unknown:'#d0d5dd' };
  var PALETTE = ['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b','#e377c2','#17becf','#bcbd22','#7f7f7f','#393b79','#ad494a'];
  var M = { left:70, right:16, top:8, bottom:22 };
  var hidden = {};

  function $(id) { return document.getElementById(id); }
  function node(name, attrs, parent, text) {
    var n = document.createElementNS(NS, name);
    for (var k in attrs) n.setAttribute(k, attrs[k]);
    if (text !== undefined) n.textContent = text;
    if (parent) parent.appendChild(n);
    return n;
  }
  function html(tag, text, parent, cls) {
    var n = document.createElement(tag);
    if (text !== undefined && text !== null) n.textContent = text;
    if (cls) n.className = cls;
    if (parent) parent.appendChild(n);
    return n;
  }
  function clock(s) {
    s = Math.max(0, Math.floor(s));
    var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    return (h ? h + ':' + (m < 10 ? '0' : '') : '') + m + ':' + (r < 10 ? '0' : '') + r;
  }
  function fmt(v, unit) {
    if (v === null || v === undefined || !isFinite(v)) return '–';
    if (unit === 'bps') {
      var a = Math.abs(v);
      if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e7 ? 1 : 2) + ' Mbps';
      if (a >= 1e3) return (v / 1e3).toFixed(0) + ' kbps';
      return v.toFixed(0) + ' bps';
    }
    if (unit === '%') return v.toFixed(v < 10 ? 1 : 0) + ' %';
    if (unit === 'ms') return v.toFixed(v < 10 ? 1 : 0) + ' ms';
    if (unit === 'fps') return v.toFixed(0) + ' fps';
    if (unit === 'px') return v.toFixed(0) + ' px';
    return String(v);
  }
  function axisLabel(v, unit) {
    if (unit === 'bps') { if (v >= 1e6) return (v / 1e6) + 'M'; if (v >= 1e3) return (v / 1e3) + 'k'; return String(v); }
    return String(v);
  }
  function niceStep(range, count) {
    var raw = range / Math.max(1, count), p = Math.pow(10, Math.floor(Math.log10(raw))), n = raw / p;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
  }
  var duration = Math.max(1, D.duration || 1);
  function plotWidth(svgWidth) { return Math.max(50, svgWidth - M.left - M.right); }
  function xOf(t, w) { return M.left + (t / duration) * plotWidth(w); }
  function xAxis(svg, w, y, ticks) {
    var step = niceStep(duration, Math.max(2, Math.floor(plotWidth(w) / 90)));
    for (var t = 0; t <= duration + 1e-9; t += step) {
      var x = xOf(t, w);
      if (ticks) node('line', { x1:x, x2:x, y1:M.top, y2:y, stroke:'#eaecf0' }, svg);
      node('text', { x:x, y:y + 14, 'text-anchor':'middle' }, svg, clock(t));
    }
  }
  function spanMarkers(svg, w, top, bottom) {
    D.markers.forEach(function (m) {
      if (m.kind === 'event') return;
      var x0 = xOf(m.t, w), x1 = Math.max(x0 + 2, xOf(m.end === undefined ? m.t : m.end, w));
      var r = node('rect', { x:x0, y:top, width:x1 - x0, height:bottom - top, fill: m.kind === 'freeze' ? 'rgba(215,48,39,.14)' : 'rgba(158,74,200,.14)' }, svg);
      node('title', {}, r, clock(m.t) + ' ' + m.text);
    });
    D.markers.forEach(function (m) {
      if (m.kind !== 'event') return;
      var x = xOf(m.t, w);
      var l = node('line', { x1:x, x2:x, y1:top, y2:bottom, stroke:'#98a2b3', 'stroke-dasharray':'2,3' }, svg);
      node('title', {}, l, clock(m.t) + ' ' + m.text);
    });
  }

  function summary() {
    $('title').textContent = 'Call report — ' + D.file;
    var start = D.start ? new Date(D.start).toISOString().replace('T', ' ').replace(/\..*/, ' UTC') : '';
    $('meta').textContent = D.format + ' · ' + D.samples + ' samples · peers: ' + D.peers.join(', ') + (start ? ' · started ' + start : '');
    var root = $('summary');
    html('h2', 'Summary', root);
    var cards = html('div', null, root, 'cards');
    function card(value, label) { var c = html('div', null, cards, 'card'); html('b', value, c); html('span', label, c); }
    card(clock(D.duration), 'duration');
    card(String(D.streams.length), 'video streams');
    var freezes = D.streams.reduce(function (a, s) { return a + s.freezes; }, 0);
    card(String(freezes), 'freezes');
    var events = D.markers.filter(function (m) { return m.kind === 'event'; }).length;
    card(String(events), 'quality events');
    if (D.problemCount) card(String(D.problemCount), 'damaged parts skipped');
    var split = html('div', null, root, 'split');
    var left = html('div', null, split), right = html('div', null, split);
    var conditions = ['excellent', 'good', 'fair', 'warning', 'critical', 'unknown'];
    var table = html('table', null, left), head = html('tr', null, html('thead', null, table));
    ['stream', 'mean', 'p5', 'loss', 'freezes'].concat(conditions).concat(['main source']).forEach(function (h, i) {
      var th = html('th', null, head, i === 0 || i === 11 ? 'l' : '');
      if (i >= 5 && i < 11) { html('span', null, th, 'chip').style.background = CONDITION[h]; th.appendChild(document.createTextNode(h + ' s')); } else th.textContent = h;
    });
    var body = html('tbody', null, table);
    if (!D.streams.length) { var r0 = html('tr', null, body); var c0 = html('td', 'no video stream in this capture', r0, 'empty'); c0.colSpan = 12; }
    D.streams.forEach(function (s) {
      var tr = html('tr', null, body);
      html('td', s.peer + (s.direction === 'sending' ? ' ↑ sends' : ' ↓ receives') + (s.stream ? ' ' + s.stream : ''), tr);
      html('td', fmt(s.meanBitrate, 'bps'), tr); html('td', fmt(s.p5Bitrate, 'bps'), tr);
      html('td', s.lossPercent.toFixed(2) + ' %', tr);
      html('td', s.freezes + (s.freezes ? ' (' + s.freezeSeconds.toFixed(1) + ' s)' : ''), tr);
      conditions.forEach(function (c) { html('td', (s.conditionSeconds[c] || 0).toFixed(0), tr); });
      html('td', s.direction === 'receiving' ? s.dominantSource : '', tr, 'l');
    });
    if (D.idle.line) { var ri = html('tr', null, body); var ci = html('td', D.idle.line, ri, 'empty'); ci.colSpan = 12; ci.title = D.idle.streams.join(', '); }
    html('h2', 'Worst moments', right);
    var list = html('ul', null, right, 'worst');
    if (!D.worst.length) html('li', 'nothing degraded', list, 'empty');
    D.worst.forEach(function (w) { html('li', clock(w.t) + ' — ' + w.text, list); });
    if (D.problemCount) {
      var p = html('div', null, right, 'problems');
      html('h2', 'Skipped while reading', p);
      D.problems.forEach(function (t) { html('div', t, p); });
    }
  }

  function bands() {
    var root = $('bands'); root.innerHTML = '';
    var w = root.clientWidth || 1000, row = 30, h = D.bands.length * row + 22 + 18;
    var svg = node('svg', { viewBox:'0 0 ' + w + ' ' + h, height:h }, root);
    if (D.idle.line) html('div', D.idle.line + ': ' + D.idle.streams.join(', '), root, 'empty');
    D.bands.forEach(function (b, i) {
      var y = i * row;
      node('text', { x:M.left, y:y + 10, 'font-weight':600 }, svg, b.label);
      b.segments.forEach(function (s) {
        var colours = b.kind === 'source' ? SOURCE : CONDITION;
        var x0 = xOf(s.from, w), x1 = xOf(s.to, w);
        var r = node('rect', { x:x0, y:y + 14, width:Math.max(1, x1 - x0), height:12, fill:colours[s.value] || '#d0d5dd' }, svg);
        node('title', {}, r, clock(s.from) + '–' + clock(s.to) + ' ' + s.value + (s.detail ? ' (' + s.detail + ')' : ''));
      });
    });
    var ey = D.bands.length * row + 4;
    node('text', { x:M.left - 6, y:ey + 9, 'text-anchor':'end' }, svg, 'events');
    D.markers.forEach(function (m) {
      var x = xOf(m.t, w), colour = m.kind === 'event' ? '#344054' : m.kind === 'freeze' ? '#d73027' : '#9e4ac8';
      var p = node('path', { d:'M' + (x - 4) + ',' + ey + 'L' + (x + 4) + ',' + ey + 'L' + x + ',' + (ey + 9) + 'Z', fill:colour }, svg);
      node('title', {}, p, clock(m.t) + ' ' + m.text);
    });
    xAxis(svg, w, h - 20, false);
    var legend = $('band-legend'); legend.innerHTML = '';
    Object.keys(CONDITION).forEach(function (k) { var s = html('span', null, legend); html('i', null, s, 'chip').style.background = CONDITION[k]; s.appendChild(document.createTextNode(k)); });
    html('span', '·', legend);
    Object.keys(SOURCE).forEach(function (k) { var s = html('span', null, legend); html('i', null, s, 'chip').style.background = SOURCE[k]; s.appendChild(document.createTextNode('source ' + k)); });
    var f = html('span', null, legend); html('i', null, f, 'chip').style.background = 'rgba(215,48,39,.35)'; f.appendChild(document.createTextNode('freeze'));
    var q = html('span', null, legend); html('i', null, q, 'chip').style.background = 'rgba(158,74,200,.35)'; q.appendChild(document.createTextNode('pause'));
  }

  function chart(c, container) {
    var panel = html('div', null, container, 'panel');
    html('h2', c.title + ' · ' + c.unit, panel);
    var holder = html('div', null, panel);
    if (!c.series.length) { html('div', 'no data in this capture', holder, 'empty'); return; }
    var legend = html('div', null, panel, 'legend');
    var colours = {}, colourIndex = 0;
    c.series.forEach(function (s) {
      var base = s.name.replace(/ \+RTP$/, '');
      if (colours[base] === undefined) colours[base] = PALETTE[colourIndex++ % PALETTE.length];
      s.colour = colours[base];
    });
    function draw() {
      holder.innerHTML = '';
      var w = holder.clientWidth || 1000, h = 190;
      var svg = node('svg', { viewBox:'0 0 ' + w + ' ' + h, height:h }, holder);
      var visible = c.series.filter(function (s) { return !hidden[c.id + '|' + s.name]; });
      var max = 0;
      visible.forEach(function (s) { s.points.forEach(function (p) { if (p[1] > max) max = p[1]; }); });
      if (c.unit === '%') max = Math.max(max, 5);
      if (max <= 0) max = 1;
      var step = niceStep(max, 4), top = Math.ceil(max * 1.05 / step) * step;
      var y0 = h - M.bottom, y1 = M.top;
      function yOf(v) { return y0 - (v / top) * (y0 - y1); }
      for (var v = 0; v <= top + 1e-9; v += step) {
        node('line', { x1:M.left, x2:w - M.right, y1:yOf(v), y2:yOf(v), stroke:'#eaecf0' }, svg);
        node('text', { x:M.left - 6, y:yOf(v) + 4, 'text-anchor':'end' }, svg, axisLabel(+v.toPrecision(6), c.unit));
      }
      xAxis(svg, w, y0, false);
      spanMarkers(svg, w, y1, y0);
      visible.forEach(function (s) {
        if (!s.points.length) return;
        var d = '';
        s.points.forEach(function (p, i) { d += (i ? 'L' : 'M') + xOf(p[0], w).toFixed(1) + ',' + yOf(p[1]).toFixed(1); });
        if (s.points.length === 1) d += 'h2';
        node('path', { d:d, fill:'none', stroke:s.colour, 'stroke-width':1.6, 'stroke-dasharray': s.dashed ? '5,3' : 'none', 'stroke-linejoin':'round', 'class':'series' }, svg);
      });
      var cross = node('line', { x1:0, x2:0, y1:y1, y2:y0, stroke:'#475467', visibility:'hidden' }, svg);
      svg.addEventListener('mousemove', function (e) {
        var box = svg.getBoundingClientRect(), x = (e.clientX - box.left) * (w / box.width);
        var t = (x - M.left) / plotWidth(w) * duration;
        if (t < 0 || t > duration) { tip.style.display = 'none'; cross.setAttribute('visibility', 'hidden'); return; }
        cross.setAttribute('x1', x); cross.setAttribute('x2', x); cross.setAttribute('visibility', 'visible');
        tip.innerHTML = '';
        html('div', clock(t), tip).style.fontWeight = '600';
        visible.forEach(function (s) {
          var p = nearest(s.points, t);
          if (!p || Math.abs(p[0] - t) > Math.max(2, duration / 300)) return;
          var line = html('div', null, tip);
          html('span', null, line, 'chip').style.background = s.colour;
          line.appendChild(document.createTextNode(s.name + ': ' + fmt(p[1], c.unit)));
        });
        tip.style.display = 'block';
        tip.style.left = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8) + 'px';
        tip.style.top = (e.clientY + 14) + 'px';
      });
      svg.addEventListener('mouseleave', function () { tip.style.display = 'none'; cross.setAttribute('visibility', 'hidden'); });
    }
    c.series.forEach(function (s) {
      var item = html('span', null, legend);
      var sw = html('i', null, item, 'swatch' + (s.dashed ? ' dashed' : ''));
      sw.style.borderColor = s.colour;
      item.appendChild(document.createTextNode(s.name));
      item.title = s.count + ' values';
      item.addEventListener('click', function () {
        var key = c.id + '|' + s.name;
        hidden[key] = !hidden[key];
        item.className = hidden[key] ? 'off' : '';
        draw();
      });
    });
    redraws.push(draw);
    draw();
  }
  function nearest(points, t) {
    var lo = 0, hi = points.length - 1;
    if (hi < 0) return null;
    while (hi - lo > 1) { var mid = (lo + hi) >> 1; if (points[mid][0] < t) lo = mid; else hi = mid; }
    return Math.abs(points[lo][0] - t) <= Math.abs(points[hi][0] - t) ? points[lo] : points[hi];
  }
  function eventsTable() {
    var root = $('events');
    if (!D.markers.length) { html('div', 'none', root, 'empty'); return; }
    var table = html('table', null, root, 'events'), body = html('tbody', null, table);
    D.markers.slice().sort(function (a, b) { return a.t - b.t; }).slice(0, 500).forEach(function (m) {
      var tr = html('tr', null, body);
      html('td', clock(m.t), tr).style.width = '60px';
      html('td', m.kind, tr).style.width = '60px';
      html('td', m.text, tr);
    });
    if (D.markers.length > 500) html('div', (D.markers.length - 500) + ' more not listed', root, 'empty');
  }

  var tip = $('tip'), redraws = [];
  summary();
  bands();
  var charts = $('charts');
  D.charts.forEach(function (c) { chart(c, charts); });
  eventsTable();
  var pending = null;
  window.addEventListener('resize', function () {
    clearTimeout(pending);
    pending = setTimeout(function () { bands(); redraws.forEach(function (f) { f(); }); }, 120);
  });
  var drawn = document.querySelectorAll('path.series').length;
  if (!failures.length) document.body.setAttribute('data-render', 'ok');
  document.body.setAttribute('data-series-paths', String(drawn));
})();
</script>
</body>
</html>
"""#
}
