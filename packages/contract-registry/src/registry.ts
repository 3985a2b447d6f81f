/**
 * The deprecation registry: every deprecated or watched item of the three contracts, produced by
 * `npm run generate` (generated/deprecations.json) and read by the transports, the report and the CLI.
 *
 * Item ids are stable, protocol-prefixed and path-safe (only `A-Z a-z 0-9 . _ -`), so they travel in a URL
 * path segment without encoding:
 *   rest.<operationId>                        an operation, or a webhook (an event type) of `webhooks:`
 *   rest.<operationId>.<in>.<name>            a parameter (in: query, header, path)
 *   rest.<operationId>.body.<member>          a member of an inline request body
 *   rest.<Schema>.<property>[.<property>…]    a property of a component schema (request or response)
 *   rest.v<n>                                 a whole version of the REST API (`info.x-versions`)
 *   graphql.<Type>.<field> / .<field>.<arg>   a field, an input field, an enum value / an argument
 *   grpc.<package>.<Service>.<Rpc>            an rpc
 *   grpc.<package>.<Message>.<field>          a message field
 */

/** What a REST item is attached to, for matching requests (and webhook deliveries) at run time. */
export type RestMatch =
  | { on: 'operation'; operationId: string }
  | { on: 'parameter'; operationId: string; in: string; name: string }
  | { on: 'body'; operationId: string; path: string[] }
  | { on: 'property'; schema: string; path: string[] }
  /** Every request under a version (`v1`); its replacement is the version callers move to (`v2`). */
  | { on: 'version'; version: string }
  /** Every webhook delivery of an event type (`order.updated`), the key of `webhooks:` in the contract. */
  | { on: 'event'; type: string };

/** What a GraphQL item is: a field or input field (`Type.field`), an argument, an enum value. */
export type GraphqlMatch =
  | { on: 'field'; type: string; field: string }
  | { on: 'argument'; type: string; field: string; argument: string }
  | { on: 'input-field'; type: string; field: string }
  | { on: 'enum-value'; type: string; value: string };

/** What a gRPC item is: an rpc (`/package.Service/Method`) or a message field by number. */
export type GrpcMatch =
  | { on: 'rpc'; service: string; method: string }
  | { on: 'field'; message: string; field: string; number: number };

/** One registry item. */
export interface RegistryItem {
  /** Stable id (see the scheme above). */
  id: string;
  protocol: 'rest' | 'graphql' | 'grpc';
  /** `deprecated` carries a sunset date; `watched` is measured before any date is announced. */
  status: 'deprecated' | 'watched';
  /** A readable name, e.g. `GET /v1/orders ?status` or `Order.amount`. */
  name: string;
  /** When it was deprecated, `YYYY-MM-DD` (the `Deprecation` header's date); null while only watched. */
  deprecated: string | null;
  /** The dated end, `YYYY-MM-DD` (the first day the item may be gone); null while only watched. */
  sunset: string | null;
  /** Why, and what to use instead, as the contract says. */
  reason: string | null;
  /**
   * What replaces it, named beside it (a property of the same schema, a parameter of the same operation,
   * an operation, a field of the same type or message …): for a deprecated item as its contract names it
   * (`x-replaced-by`, ``Use `<field>`.``, `Replaced by: <field>.`), else as contracts/watched.yaml did
   * while it was watched; for a watched item, its watched.yaml `replacement`. A read that asks for the
   * replacement of a response property or GraphQL field, instead of the item, is a `replacement` use.
   */
  replacement: string | null;
  /** Where the published reference describes it (an anchor of /docs/deprecations). */
  link: string;
  match: RestMatch | GraphqlMatch | GrpcMatch;
}

/** Where an item stands in its retirement, as the report and the usage export name it. */
export type ItemState = 'watched' | 'announced' | 'sunset-passed' | 'overdue';

/** The registry as generated. */
export interface DeprecationRegistry {
  items: RegistryItem[];
}

/** Whether `text` is a real calendar date written `YYYY-MM-DD`. */
export function isRealDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** The reference anchor of an item. */
export const referenceLink = (id: string) => `/docs/deprecations#${id}`;

/** The values of the deprecation signal of a set of used items; undefined when none is deprecated. */
export function signalOf(
  items: RegistryItem[],
): { deprecation?: string; sunset?: string; links: string[] } | undefined {
  const deprecated = items.filter((item) => item.status === 'deprecated');
  if (deprecated.length === 0) return undefined;
  const earliest = (dates: Array<string | null>) => dates.filter((d): d is string => d !== null).sort()[0];
  const since = earliest(deprecated.map((item) => item.deprecated));
  const sunset = earliest(deprecated.map((item) => item.sunset));
  return {
    // RFC 9745: a Structured Field Date, `@` and Unix seconds.
    ...(since ? { deprecation: `@${Date.parse(`${since}T00:00:00Z`) / 1000}` } : {}),
    // RFC 8594: an HTTP-date.
    ...(sunset ? { sunset: new Date(`${sunset}T00:00:00Z`).toUTCString() } : {}),
    links: [...new Set(deprecated.map((item) => item.link))],
  };
}

/**
 * The `Brownout` signal of a set of used items: the windows announced for the deprecated ones, as RFC 3339
 * intervals `<start>/<end>` separated by `, `, earliest first; undefined when none is announced. The
 * running window of a `withheld` item (left out of the answer) is marked `; withheld="<item id>"`. The
 * same value on every interface (REST and gRPC headers; GraphQL lists the windows in
 * `extensions.deprecations`).
 */
export function brownoutHeader(
  items: RegistryItem[],
  announced: (id: string) => Array<{ startsAt: Date; endsAt: Date }>,
  withheld: readonly RegistryItem[] = [],
): string | undefined {
  const windows = items
    .filter((item) => item.status === 'deprecated')
    .flatMap((item) =>
      // The earliest window not yet ended is the running one when the item is withheld.
      announced(item.id).map((window, index) => ({
        window,
        marked: index === 0 && withheld.includes(item) ? `; withheld="${item.id}"` : '',
      })),
    )
    .sort((a, b) => a.window.startsAt.getTime() - b.window.startsAt.getTime());
  if (windows.length === 0) return undefined;
  const intervals = windows.map(
    ({ window, marked }) => `${window.startsAt.toISOString()}/${window.endsAt.toISOString()}${marked}`,
  );
  return [...new Set(intervals)].join(', ');
}

/** How the API describes a registry item to callers, the same members in REST and GraphQL. */
export interface ItemDescription {
  id: string;
  protocol: RegistryItem['protocol'];
  name: string;
  status: RegistryItem['status'];
  deprecatedOn: string | null;
  sunset: string | null;
  reason: string | null;
  replacement: string | null;
  link: string;
}

/** The members every answer about an item carries (the report, a key's own usage). */
export function describeItem(item: RegistryItem): ItemDescription {
  return {
    id: item.id,
    protocol: item.protocol,
    name: item.name,
    status: item.status,
    deprecatedOn: item.deprecated,
    sunset: item.sunset,
    reason: item.reason,
    replacement: item.replacement,
    link: item.link,
  };
}
