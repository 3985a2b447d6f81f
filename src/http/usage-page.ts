/**
 * The usage page at `/docs/usage`: an API owner watches deprecated and watched items by looking. It asks
 * for a key as the reference's "Authorize" does (a bearer key kept in the page's memory only, never stored),
 * reads the JSON answers of this server in the browser — a key's own use (`/v1/api-keys/me/deprecations`,
 * or another key's by id), or, for an admin, every caller's (`/v1/deprecations` and each item's callers) —
 * and draws each item's daily uses and replacement uses as an SVG chart with the brownout windows and the
 * sunset marked (./usage-script.ts). Served with the reference's assets policy: no CDN, no inline script.
 */

/** The page: the key form and the place the charts go; the script is `/docs/assets/usage.js`. */
export const usagePage = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Order API · usage of deprecated items</title>
  <link rel="icon" href="data:,">
  <style>
    body { font-family: sans-serif; margin: 1em 2em; max-width: 60em; }
    form { display: flex; flex-wrap: wrap; gap: .5em; align-items: end; margin: 1em 0; }
    label { display: flex; flex-direction: column; font-size: .9em; }
    figure { margin: 1.5em 0; }
    figcaption { margin-bottom: .3em; }
    .series { fill: none; stroke-width: 2; }
    .uses { stroke: #c0392b; }
    .replacement { stroke: #2471a3; stroke-dasharray: 5 3; }
    .brownout { fill: #7f8c8d; fill-opacity: .5; }
    .sunset { stroke: #000; stroke-width: 2; }
    .axis { stroke: #999; }
    svg text { font-size: 11px; }
    #status { min-height: 1.2em; }
  </style>
</head>
<body>
  <h1>Usage of deprecated and watched items</h1>
  <p>Each item of the <a href="/docs/deprecations">deprecation reference</a> that a key used in the last 30
  days, per UTC day: uses of the item (solid) and of its replacement (dashed), with the brownout windows
  scheduled for it (grey) and its sunset (black line). Counts reach the server every few seconds. Admins
  may look at every caller at once, or at one key by its id; any key may look at itself.</p>
  <form id="authorize">
    <label><span>API key (sent as <code>Authorization: Bearer</code>)</span>
      <input type="password" name="key" autocomplete="off" required size="40"></label>
    <label>Show
      <select name="scope">
        <option value="me">this key's use</option>
        <option value="key">the key with id…</option>
        <option value="all">every caller (admins)</option>
      </select></label>
    <label>Key id <input type="text" name="keyId" inputmode="numeric" size="8"></label>
    <button type="submit">Authorize</button>
    <button type="button" id="logout">Logout</button>
  </form>
  <p id="status" role="status"></p>
  <div id="charts"></div>
  <script src="/docs/assets/usage.js"></script>
</body>
</html>
`;
