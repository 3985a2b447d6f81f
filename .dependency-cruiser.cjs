/**
 * Architecture rules (docs/decisions.md §1): the core depends on ports only; transports never reach storage.
 * `npm run lint` fails on any violation. Paths match `src/…` anywhere so that the fixture under
 * test/fixtures/architecture proves the rules fire.
 */
const transportsAndDrivers = [
  '^(pg|pg-pool|@electric-sql/pglite|postgres)$',
  '^(hono|@hono/.*|openapi-backend|graphql|graphql-yoga|@graphql-yoga/.*|@escape\\.tech/.*|dataloader)$',
  '^(@connectrpc/.*|@grpc/.*|@bufbuild/protobuf)$',
  '^(pino|prom-client)$',
].join('|');

module.exports = {
  forbidden: [
    {
      name: 'core-is-transport-and-driver-free',
      comment:
        'src/core holds the rules; it talks to ports, never to a transport, a storage driver or generated stubs.',
      severity: 'error',
      from: { path: '(^|/)src/core/' },
      to: {
        path: `^generated/|(^|/)src/(store|http|rest|graphql|grpc|compose|demo)/|(^|/)src/(main|server)\\.ts|node_modules/(${transportsAndDrivers.replaceAll('^', '').replaceAll('$', '')})/`,
      },
    },
    {
      name: 'core-has-no-generated-types',
      comment: 'Generated wire types belong to the transports that map them; the core has its own domain types.',
      severity: 'error',
      from: { path: '(^|/)src/core/' },
      to: { path: '^generated/' },
    },
    {
      name: 'transports-do-not-reach-storage',
      comment: 'Handlers only map: they call the core, never the store or a database driver.',
      severity: 'error',
      from: { path: '(^|/)src/(http|rest|graphql|grpc)/' },
      to: { path: '(^|/)src/store/|node_modules/(pg|@electric-sql/pglite)/' },
    },
    {
      name: 'core-passes-context-explicitly',
      comment:
        'The core passes what a function needs (an idempotency claim, a deadline, a caller) as an argument: AsyncLocalStorage hides the coupling from readers and the type checker.',
      severity: 'error',
      from: { path: '(^|/)src/core/' },
      to: { path: '^(node:)?async_hooks$' },
    },
    {
      name: 'edge-helpers-use-no-driver',
      comment:
        'src/http holds what every HTTP route shares; database and Redis adapters live in src/store and src/redis, handed in by the composition root.',
      severity: 'error',
      from: { path: '(^|/)src/http/' },
      to: { path: '(^|/)src/(store|redis)/|node_modules/(pg|pg-pool|@electric-sql/pglite|postgres|ioredis|redis)/' },
    },
    {
      name: 'transports-leave-money-to-the-core',
      comment:
        "What an amount is made of (its VAT split) is the core's rule (src/core/shared/money.ts); transports map the core's amounts with src/core/shared/decimal-amounts.ts.",
      severity: 'error',
      from: { path: '(^|/)src/(http|rest|graphql|grpc|compose)/' },
      // shared/index.ts re-exports the VAT split for the rooms of the core; transports may not take it there either.
      to: { path: '(^|/)src/core/shared/(money|index)\\.ts$' },
    },
    {
      name: 'transports-leave-usage-to-the-policy',
      comment:
        "What counts as a use of a deprecated item, and what is recorded for whom, is the core's deprecation policy (src/core/lifecycle/deprecation-policy.ts): transports collect what a request used and apply its decision.",
      severity: 'error',
      from: { path: '(^|/)src/(http|rest|graphql|grpc)/' },
      to: { path: '(^|/)src/core/(lifecycle/usage/(usage-recorder|index)|ports/usage)\\.ts$' },
    },
    {
      name: 'rest-and-graphql-are-apart',
      comment: 'The two HTTP transports share the core and the edge helpers (src/http), never each other.',
      severity: 'error',
      // $2 is the transport the importing module is in: importing within it is fine.
      from: { path: '(^|/)src/(rest|graphql)/' },
      to: { path: '(^|/)src/(rest|graphql)/', pathNot: '(^|/)src/$2/' },
    },
    {
      name: 'edge-helpers-do-not-mount-transports',
      comment:
        'src/http holds what every HTTP route shares (auth, problems, metrics, health); mounting the transports is src/compose.',
      severity: 'error',
      from: { path: '(^|/)src/http/' },
      to: { path: '(^|/)src/(rest|graphql|grpc|compose)/' },
    },
    {
      name: 'adapters-meet-in-compose',
      comment:
        'The storage, Redis, webhook and mail adapters get what they need as arguments from src/compose (the composition root): none imports another adapter, a transport or the configuration.',
      severity: 'error',
      // $2 is the adapter the importing module is in: importing within it is fine.
      from: { path: '(^|/)src/(store|redis|webhooks|mail)/' },
      to: {
        path: '(^|/)src/(store/|redis/|webhooks/|mail/|rest/|graphql/|grpc/|http/|compose/|config\\.ts$|main\\.ts$)',
        pathNot: '(^|/)src/$2/',
      },
    },
    {
      name: 'transports-take-settings-from-compose',
      comment:
        'Transports and edge helpers are handed their settings and adapters by src/compose: none reads the configuration or reaches the Redis, webhook or mail adapters.',
      severity: 'error',
      from: { path: '(^|/)src/(rest|graphql|grpc|http|observability|demo)/' },
      to: { path: '(^|/)src/(config\\.ts$|main\\.ts$|redis/|webhooks/|mail/|compose/)' },
    },
    {
      name: 'rooms-meet-at-their-index',
      comment:
        "A room of the core (src/core/orders, src/core/lifecycle/usage, …) uses another only through the other's index.ts, which names what the room offers; the rest of a room is its own.",
      severity: 'error',
      // $2 is the importing module's folder below src/core (with its slash; empty at the top).
      from: { path: '(^|/)src/core/(.*/|)[^/]+$' },
      to: { path: '(^|/)src/core/', pathNot: '(^|/)src/core/$2[^/]+$|/index\\.ts$' },
    },
    {
      name: 'packages-stand-alone',
      comment:
        "The workspace packages (packages/*) are the product's libraries: they import each other and npm packages, never the product's sources, scripts or generated code. A project hands the gate what it needs in contract-gate.config.ts.",
      severity: 'error',
      from: { path: '(^|/)packages/[^/]+/src/' },
      to: { path: '(^|/)(src|scripts|test|generated)/', pathNot: '(^|/)packages/' },
    },
    {
      name: 'registry-is-below-the-gate',
      comment:
        'The contract registry runs in the server; the contract gate is a development tool that uses it. The registry never imports the gate.',
      severity: 'error',
      from: { path: '(^|/)packages/contract-registry/' },
      to: { path: '(^|/)packages/contract-gate/' },
    },
    {
      name: 'core-reads-the-registry-format-only',
      comment:
        "The core reads the registry's format, signals and evidence (@order-api/contract-registry); matching a request, a document or a message is its transport's work (@order-api/contract-registry/matching, which loads graphql and @bufbuild/protobuf).",
      severity: 'error',
      from: { path: '(^|/)src/core/' },
      to: { path: '(^|/)packages/contract-registry/src/matching/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
    exclude: { path: '\\.test\\.ts$' },
  },
};
