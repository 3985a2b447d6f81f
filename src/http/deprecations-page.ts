/**
 * The deprecation reference at `/docs/deprecations`: one entry per registry item of the three interfaces,
 * each with its dated end, under an anchor equal to its id. The `Link: <…>; rel="deprecation"` of every
 * signal points at one of these anchors; the page is server-rendered, so an anchor resolves without script.
 */
import type { DeprecationRegistry } from '@order-api/contract-registry';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Renders the page, with the brownout windows announced for each item. */
export function renderDeprecationsPage(
  registry: DeprecationRegistry,
  announced: (id: string) => Array<{ startsAt: Date; endsAt: Date }> = () => [],
): string {
  const entries = registry.items.map((item) => {
    const windows = announced(item.id).map(
      ({ startsAt, endsAt }) =>
        `<li><time datetime="${startsAt.toISOString()}">${startsAt.toISOString()}</time> to ` +
        `<time datetime="${endsAt.toISOString()}">${endsAt.toISOString()}</time></li>`,
    );
    const dates =
      item.status === 'deprecated'
        ? `Deprecated on <time datetime="${item.deprecated}">${item.deprecated}</time>; ` +
          `<strong>sunset <time datetime="${item.sunset}">${item.sunset}</time></strong> (it may be gone from that day).`
        : 'Watched: measured per caller, no end date announced.';
    return `<section id="${escapeHtml(item.id)}">
  <h2><code>${escapeHtml(item.id)}</code></h2>
  <p>${escapeHtml(item.protocol.toUpperCase())} · ${escapeHtml(item.name)} · ${dates}</p>
  ${item.reason ? `<p>${escapeHtml(item.reason)}</p>` : ''}
  ${item.replacement ? `<p>Replaced by: <code>${escapeHtml(item.replacement)}</code></p>` : ''}
  ${windows.length > 0 ? `<p><strong>Brownouts</strong> (requests that use it are refused with <code>BROWNOUT</code>):</p><ul>${windows.join('')}</ul>` : ''}
</section>`;
  });
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Order API · deprecations</title>
</head>
<body>
  <h1>Deprecated and watched items</h1>
  <p>Every item of the REST (<a href="/docs">/docs</a>), GraphQL and gRPC contracts that is deprecated, with
  its dated end, or watched before an end date is announced. The same registry as JSON:
  <a href="/contracts/deprecations">/contracts/deprecations</a>. Requests that use a deprecated item get
  <code>Deprecation</code>, <code>Sunset</code> and a <code>Link</code> to its entry here (GraphQL:
  <code>extensions.deprecations</code>; gRPC: <code>deprecation</code> and <code>sunset</code> headers).
  Before an item goes it is browned out: blocked for short windows announced here at least 7 days ahead
  (and in the <code>Brownout</code> header of every use), to surface callers nobody has measured.</p>
  ${entries.length > 0 ? entries.join('\n  ') : '<p>Nothing is deprecated or watched.</p>'}
</body>
</html>
`;
}
