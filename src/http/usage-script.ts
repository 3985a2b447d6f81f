/**
 * The browser script of `/docs/usage` (./usage-page.ts), served as `/docs/assets/usage.js`: plain DOM and
 * hand-drawn SVG, no library. A chart per item: the days of the period on x (widened to the item's
 * scheduled brownout windows, and to its sunset when that is within 60 days), uses as a solid line,
 * replacement uses dashed, brownout windows as grey bands, the sunset as a black line (or, further away, an
 * arrow at the right edge). Every number is also in a `data-` attribute, so a test reads what was drawn.
 */
const script = `(() => {
  'use strict';
  const API = __API_BASE__;
  const SVG = 'http://www.w3.org/2000/svg';
  const DAY = 86400000;
  const WIDTH = 640, HEIGHT = 170, LEFT = 40, RIGHT = 12, TOP = 12, BOTTOM = 28;
  const SUNSET_HORIZON_DAYS = 60;
  const form = document.getElementById('authorize');
  const statusLine = document.getElementById('status');
  const charts = document.getElementById('charts');
  // The key stays in this closure only, as the reference's "Authorize" keeps it: never stored.
  let key = '';

  const say = (text) => { statusLine.textContent = text; };
  const dayTime = (day) => Date.parse(day + 'T00:00:00Z');
  const dayOf = (time) => new Date(time).toISOString().slice(0, 10);

  async function get(path) {
    const response = await fetch(path, { headers: { authorization: 'Bearer ' + key, accept: 'application/json' } });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(response.status + ' ' + (body.code || '') + ': ' + (body.detail || response.statusText));
    return body;
  }

  /** A key's own usage: GET <API>/api-keys/{id|me}/deprecations. */
  async function keyView(id) {
    const body = await get(API + '/api-keys/' + encodeURIComponent(id) + '/deprecations');
    return { title: 'API key ' + body.apiKeyId + ': items it used', from: body.from, to: body.to, items: body.items };
  }

  /** Every caller (admins): the report, and each item's callers summed per day. */
  async function everyCallerView() {
    const to = dayOf(Date.now());
    const from = dayOf(dayTime(to) - 29 * DAY);
    const items = [];
    for (const entry of await allPages(API + '/deprecations?size=100')) {
      const daily = new Map();
      for (const caller of await callersOf(entry.id)) {
        for (const day of caller.daily) {
          const sum = daily.get(day.day) || { day: day.day, uses: 0, replacementUses: 0, brownoutHits: 0 };
          sum.uses += day.uses;
          sum.replacementUses += day.replacementUses;
          sum.brownoutHits += day.brownoutHits;
          daily.set(day.day, sum);
        }
      }
      items.push({
        ...entry,
        uses: entry.uses.last30Days,
        replacementUses: entry.replacementUses.last30Days,
        brownoutHits: entry.brownoutHits.last30Days,
        daily: [...daily.values()],
      });
    }
    return { title: 'Every caller: every item', from, to, items };
  }

  /** An item's callers of the last 30 days. */
  function callersOf(id) {
    return allPages(API + '/deprecations/' + encodeURIComponent(id) + '/callers?days=30&size=100');
  }

  /** Every item of a paged list, page after page. */
  async function allPages(base) {
    const items = [];
    let path = base;
    for (;;) {
      const body = await get(path);
      items.push(...body.items);
      if (!body.hasNext || !body.nextCursor) return items;
      path = base + '&cursor=' + encodeURIComponent(body.nextCursor);
    }
  }

  function node(name, attributes, text) {
    const element = document.createElementNS(SVG, name);
    for (const [attribute, value] of Object.entries(attributes)) element.setAttribute(attribute, String(value));
    if (text !== undefined) element.textContent = text;
    return element;
  }

  function chart(item, from, to) {
    const start = dayTime(from);
    const dataEnd = dayTime(to) + DAY;
    let end = dataEnd;
    // A window widens the range to the end of its last day, so that its band never sits on the edge.
    for (const window of item.brownouts) end = Math.max(end, dayTime(dayOf(Date.parse(window.endsAt) - 1)) + DAY);
    const sunset = item.sunset ? dayTime(item.sunset) : undefined;
    if (sunset !== undefined && sunset <= dataEnd + SUNSET_HORIZON_DAYS * DAY) end = Math.max(end, sunset + DAY);
    const plotWidth = WIDTH - LEFT - RIGHT;
    const plotHeight = HEIGHT - TOP - BOTTOM;
    const x = (time) => LEFT + ((Math.min(Math.max(time, start), end) - start) / (end - start)) * plotWidth;
    const byDay = new Map(item.daily.map((day) => [day.day, day]));
    const days = [];
    for (let time = start; time < dataEnd; time += DAY) days.push(byDay.get(dayOf(time)) || { uses: 0, replacementUses: 0 });
    const highest = Math.max(1, ...days.map((day) => Math.max(day.uses, day.replacementUses)));
    const y = (value) => TOP + plotHeight - (value / highest) * plotHeight;

    const svg = node('svg', { viewBox: '0 0 ' + WIDTH + ' ' + HEIGHT, width: WIDTH, height: HEIGHT, role: 'img' });
    svg.append(node('title', {}, item.name + ': daily uses and replacement uses'));
    for (const window of item.brownouts) {
      const left = x(Date.parse(window.startsAt));
      svg.append(node('rect', {
        class: 'brownout', x: left, y: TOP, height: plotHeight,
        width: Math.max(6, x(Date.parse(window.endsAt)) - left),
        'data-brownout': window.startsAt + '/' + window.endsAt,
      }, undefined));
      svg.append(node('text', { x: left - 3, y: TOP + 24, 'text-anchor': 'end' }, 'brownout ' + window.startsAt.slice(0, 10)));
    }
    svg.append(node('line', { class: 'axis', x1: LEFT, y1: TOP + plotHeight, x2: WIDTH - RIGHT, y2: TOP + plotHeight }));
    svg.append(node('line', { class: 'axis', x1: LEFT, y1: TOP, x2: LEFT, y2: TOP + plotHeight }));
    svg.append(node('text', { x: LEFT - 4, y: TOP + 8, 'text-anchor': 'end' }, String(highest)));
    svg.append(node('text', { x: LEFT - 4, y: TOP + plotHeight, 'text-anchor': 'end' }, '0'));
    svg.append(node('text', { x: LEFT, y: HEIGHT - 8 }, from));
    svg.append(node('text', { x: WIDTH - RIGHT, y: HEIGHT - 8, 'text-anchor': 'end' }, dayOf(end - DAY)));
    for (const [series, member] of [['uses', 'uses'], ['replacement', 'replacementUses']]) {
      const values = days.map((day) => day[member]);
      const points = values.map((value, index) => x(start + index * DAY + DAY / 2).toFixed(1) + ',' + y(value).toFixed(1));
      svg.append(node('polyline', {
        class: 'series ' + series, points: points.join(' '), 'data-series': member,
        'data-values': values.join(','), 'data-total': values.reduce((sum, value) => sum + value, 0),
      }));
    }
    if (sunset !== undefined) {
      const beyond = sunset >= end;
      const at = beyond ? WIDTH - RIGHT : x(sunset);
      svg.append(node('line', {
        class: 'sunset', x1: at, y1: TOP, x2: at, y2: TOP + plotHeight, 'data-sunset': item.sunset, 'data-beyond': beyond,
      }));
      svg.append(node('text', { x: at - 3, y: TOP + 10, 'text-anchor': 'end' }, 'sunset ' + item.sunset + (beyond ? ' →' : '')));
    }
    return svg;
  }

  function figure(item, from, to) {
    const element = document.createElement('figure');
    element.dataset.item = item.id;
    const caption = document.createElement('figcaption');
    const name = document.createElement('strong');
    name.textContent = item.name;
    const code = document.createElement('code');
    code.textContent = item.id;
    caption.append(name, ' (', code, '): ' + item.state + '; ' +
      (item.sunset ? 'sunset ' + item.sunset : 'no sunset announced') +
      (item.replacement ? '; replaced by ' + item.replacement : '') +
      '. Last 30 days: ' + item.uses + ' uses, ' + item.replacementUses + ' replacement uses, ' +
      item.brownoutHits + ' brownout hits.');
    element.append(caption, chart(item, from, to));
    return element;
  }

  async function show() {
    const scope = form.elements.scope.value;
    const id = form.elements.keyId.value.trim();
    charts.replaceChildren();
    say('Loading…');
    const view = scope === 'all' ? await everyCallerView() : await keyView(scope === 'key' ? id : 'me');
    const heading = document.createElement('h2');
    heading.textContent = view.title + ' (' + view.from + ' to ' + view.to + ')';
    charts.append(heading, ...view.items.map((item) => figure(item, view.from, view.to)));
    charts.dataset.items = view.items.map((item) => item.id).join(' ');
    say(view.items.length === 0 ? 'No deprecated or watched item was used in the last 30 days.' : view.items.length + ' items.');
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    key = form.elements.key.value.trim();
    show().catch((error) => say('Could not read usage: ' + error.message));
  });
  document.getElementById('logout').addEventListener('click', () => {
    key = '';
    form.reset();
    charts.replaceChildren();
    say('');
  });
})();
`;

/** The script, reading the REST API under `base` (the current version's prefix, from the mount table). */
export const usageScript = (base: string): string => script.replace('__API_BASE__', JSON.stringify(base));
