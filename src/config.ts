import { availableParallelism } from 'node:os';
import path from 'node:path';
import { parsePrivateKey } from '@order-api/contract-registry';
import { z } from 'zod';

const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const port = z.coerce.number().int().min(0).max(65_535);
const positiveInt = z.coerce.number().int().positive();

const environment = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  GRPC_PORT: port.default(50_051),
  GRPC_HOST: z.string().min(1).default('127.0.0.1'),
  GRPC_SERVER: z.enum(['connect', 'grpc-js']).default('grpc-js'),
  WORKERS: z
    .union([z.literal('auto'), z.string().regex(/^[1-9]\d{0,2}$/, 'must be a whole number of processes or auto')])
    .transform((value) => (value === 'auto' ? availableParallelism() : Number(value)))
    .optional(),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  DATABASE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/)
    .optional(),
  DATABASE_POOL_SIZE: positiveInt.default(10),
  DATABASE_STATEMENT_TIMEOUT_MS: positiveInt.default(5000),
  DATABASE_PREPARED_STATEMENTS: z
    .string()
    .regex(/^\d{1,5}$/, 'must be a whole number (0 turns prepared statements off)')
    .transform(Number)
    .default(100),
  DATA_DIR: z.string().min(1).default('./data'),
  KEYS_FILE: z.string().min(1).optional(),
  PUBLIC_BASE_URL: z
    .url({ protocol: /^https?$/ })
    .transform((url) => url.replace(/\/+$/, ''))
    .optional(),
  TRUSTED_HOSTS: z
    .string()
    .regex(/^[^,\s]+(,[^,\s]+)*$/, 'a comma-separated list of host names or addresses')
    .transform((list) => list.split(',').map((host) => host.toLowerCase()))
    .default(['localhost', '127.0.0.1', '[::1]']),
  SEED_DEMO: flag.optional(),
  ADMIN_API_KEY: z.string().min(16).optional(),
  CURSOR_SECRET: z.string().min(32).optional(),
  VAT_RATE: z.coerce.number().min(0).max(1).default(0.1),
  WEBHOOK_RETRY_SECONDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'a comma-separated list of seconds')
    .default('5,300,1800,7200,18000,36000')
    .transform((text) => text.split(',').map(Number)),
  WEBHOOK_ALLOW_PRIVATE_TARGETS: flag.default(false),
  WEBHOOK_POLL_MS: positiveInt.default(1000),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000),
  WEBHOOK_DISPATCH: flag.default(true),
  WEBHOOK_MAX_ENDPOINTS: positiveInt.default(10),
  WEBHOOK_DELIVERIES_PER_MINUTE: positiveInt.default(600),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  SMTP_FROM: z.string().min(3).default('Order API <noreply@localhost>'),
  SMTP_RETRY_SECONDS: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'a comma-separated list of seconds')
    // The back-off between attempts, in seconds; after the last one the mail is given up.
    .default('10,60,300,1800,7200,18000')
    .transform((text) => text.split(',').map(Number)),
  SMTP_TIMEOUT_MS: positiveInt.default(10_000),
  SMTP_POLL_MS: positiveInt.default(5000),
  REQUEST_TIMEOUT_MS: positiveInt.default(2000),
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(5000).default(0),
  IDEMPOTENCY_LEASE_SECONDS: positiveInt.default(30),
  UNPAID_ORDER_MINUTES: z.coerce.number().int().min(0).max(525_600).default(1440),
  INVENTORY_URL: z.url({ protocol: /^https?$/ }).optional(),
  INTERNAL_TOKEN: z.string().min(16).optional(),
  GRPC_ALLOW_UNAUTHENTICATED: flag.default(false),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GRAPHQL_PERSISTED_ONLY: flag.default(false),
  GRAPHQL_INTROSPECTION: flag.default(true),
  GRAPHIQL: flag.default(true),
  GRPC_MAX_CONCURRENT_STREAMS: positiveInt.default(100),
  GRAPHQL_MAX_DEPTH: positiveInt.default(10),
  GRAPHQL_MAX_COST: positiveInt.default(5000),
  GRAPHQL_MAX_ALIASES: positiveInt.default(15),
  GRAPHQL_MAX_TOKENS: positiveInt.default(3000),
  GRAPHQL_TIMEOUT_MS: positiveInt.default(5000),
  GRAPHQL_MAX_BODY_BYTES: positiveInt.default(1_048_576),
  GRAPHQL_MAX_VARIABLES: positiveInt.default(100),
  GRAPHQL_SUBSCRIPTIONS_PER_KEY: positiveInt.default(10),
  GRAPHQL_SUBSCRIPTION_IDLE_MS: positiveInt.default(600_000),
  RATE_LIMIT_ENABLED: flag.default(true),
  RATE_LIMIT_CUSTOMER: positiveInt.default(1000),
  RATE_LIMIT_ADMIN: positiveInt.default(5000),
  RATE_LIMIT_ANONYMOUS: positiveInt.default(300),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
  REDIS_COMMAND_TIMEOUT_MS: positiveInt.default(250),
  REDIS_BREAKER_MS: positiveInt.default(5000),
  RATE_LIMIT_KEY_PREFIX: z.string().min(1).default('order-api:rate'),
  EVENTS_REDIS_CHANNEL: z.string().min(1).default('order-api:events'),
  EVENT_FEED_POLL_MS: positiveInt.default(2000),
  USAGE_FLUSH_MS: positiveInt.default(5000),
  USAGE_MAX_ENTRIES: positiveInt.default(10_000),
  SHAPES_RECORD: flag.default(true),
  SHAPES_RETENTION_DAYS: positiveInt.max(366).default(90),
  SHAPES_MAX_ENTRIES: positiveInt.default(20_000),
  SHAPES_MAX_ENTRIES_PER_KEY: positiveInt.default(2_000),
  SHAPES_MAX_SIGNATURES: positiveInt.default(50_000),
  SHAPES_MAX_SIGNATURES_PER_KEY: positiveInt.default(5_000),
  BROWNOUT_NOTICE_DAYS: z.coerce.number().int().min(0).max(365).default(7),
  BROWNOUT_MAX_MINUTES: positiveInt.max(7 * 24 * 60).default(24 * 60),
  BROWNOUT_REFRESH_MS: positiveInt.default(5000),
  EVIDENCE_SIGNING_KEY: z
    .string()
    .refine(
      (text) => {
        try {
          parsePrivateKey(text);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must be an Ed25519 private key: PKCS#8 PEM, or the base64 of its PKCS#8 DER' },
    )
    .optional(),
});

/** Whether a bind address is loopback only (`127.x.x.x`, `::1`, `localhost`). */
const isLoopbackHost = (host: string) => /^(127\.\d+\.\d+\.\d+|::1|\[::1\]|localhost)$/i.test(host);

/** The server's settings, read once from the environment by the composition root. */
export type Config = ReturnType<typeof loadConfig>;

/** Reads and checks the environment; a bad value stops the start with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = environment.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const settings = parsed.data;
  // A claim must outlive the longest request that holds it, or a slow first request would be taken over.
  if (settings.IDEMPOTENCY_LEASE_SECONDS * 1000 <= settings.REQUEST_TIMEOUT_MS) {
    throw new Error('invalid configuration:\n  IDEMPOTENCY_LEASE_SECONDS: must be longer than REQUEST_TIMEOUT_MS');
  }
  // Every process of a cluster opens the database: only a server can be shared (an embedded one is one process).
  if (settings.WORKERS !== undefined && settings.DATABASE_URL === undefined) {
    throw new Error(
      'invalid configuration:\n  WORKERS: cluster mode needs DATABASE_URL (a PostgreSQL server); the embedded database is one process per DATA_DIR, so unset WORKERS or set DATABASE_URL',
    );
  }
  // The internal port reaches the stock of every product: bound beyond loopback, it needs its token, unless
  // the operator says that the network around it is the gate (a private cluster network, a sidecar).
  if (!isLoopbackHost(settings.GRPC_HOST) && !settings.INTERNAL_TOKEN && !settings.GRPC_ALLOW_UNAUTHENTICATED) {
    throw new Error(
      `invalid configuration:\n  INTERNAL_TOKEN: GRPC_HOST ${settings.GRPC_HOST} is not loopback, so gRPC calls must carry a token; set INTERNAL_TOKEN, bind GRPC_HOST to 127.0.0.1, or set GRPC_ALLOW_UNAUTHENTICATED=true if the network itself keeps callers out`,
    );
  }
  // Demo data belongs to the embedded database; a real server is seeded only on request.
  const seedDemo = settings.SEED_DEMO ?? settings.DATABASE_URL === undefined;
  const keysFile = settings.KEYS_FILE ?? path.join(settings.DATA_DIR, 'first-start-keys.env');
  return { ...settings, SEED_DEMO: seedDemo, KEYS_FILE: keysFile };
}
