/**
 * Partial answers, after Google AIP-157: `fields=id,status` asks for only those top-level members of the
 * resource, of each item on a list. The pipeline reads `fields` once, after the contract has checked its
 * names (`partialRequest`, validated-request.ts); `json` (respond.ts) shapes every 2xx answer with
 * `selectMembers`, so no handler deals with it. The ETag stays that of the full representation.
 */

type Members = Record<string, unknown>;

const isObject = (value: unknown): value is Members =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A list envelope `{items, nextCursor?, hasNext, totalCount?}`. `hasNext` tells it from a resource that has
 * an `items` array of its own (an order).
 */
const isEnvelope = (value: Members): value is Members & { items: unknown[] } =>
  Array.isArray(value.items) && typeof value.hasNext === 'boolean';

/**
 * `body` with only the members in `keep` (all when it is undefined) and none in `omit`: of each item of a
 * list envelope, whose own members stay, else of the object itself. Members keep the order they have in
 * `body`; anything that is not an object is returned as it is, and so is `body` when there is nothing to
 * select (no copy).
 */
export function selectMembers(
  body: unknown,
  keep: ReadonlySet<string> | undefined,
  omit?: ReadonlySet<string>,
): unknown {
  if ((keep === undefined && !omit?.size) || !isObject(body)) return body;
  if (isEnvelope(body)) return { ...body, items: body.items.map((item) => selected(item, keep, omit)) };
  return selected(body, keep, omit);
}

function selected(value: unknown, keep: ReadonlySet<string> | undefined, omit: ReadonlySet<string> | undefined) {
  if (!isObject(value)) return value;
  const kept: Members = {};
  for (const name of Object.keys(value)) {
    if ((keep === undefined || keep.has(name)) && !omit?.has(name)) kept[name] = value[name];
  }
  return kept;
}
