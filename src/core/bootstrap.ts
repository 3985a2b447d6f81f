import type { Core } from './index.js';
import type { Store } from './ports/index.js';
import type { Caller } from './shared/index.js';

/** Secrets created on this start, to be shown once (they are stored only as hashes). */
export interface BootstrapResult {
  adminKey?: string;
  demoCustomerKey?: string;
  seeded: boolean;
}

/**
 * Prepares a database on start: the administrator user that `ADMIN_API_KEY` acts as (or a printed admin
 * key when none is configured), and on an empty database the data set `seed` writes, when given one.
 */
export async function bootstrap(
  core: Core,
  store: Pick<Store, 'settings' | 'users'>,
  options: {
    adminApiKey?: string;
    /** Fills an empty database as the administrator; returns a customer's key to show once. */
    seed?: (admin: Caller) => Promise<string>;
  },
): Promise<BootstrapResult> {
  const emptyDatabase = (await store.users.count()) === 0;
  // The administrator is created once per database (also one that was filled by other means).
  const recorded = await store.settings.get('admin_user_id');
  const adminUserId = Number(recorded ?? (await recordAdmin(store)));
  const adminKey = await core.apiKeys.bootstrap(options.adminApiKey, adminUserId);
  if (!emptyDatabase || !options.seed) return { ...(adminKey ? { adminKey } : {}), seeded: false };
  const demoCustomerKey = await options.seed({ userId: adminUserId, role: 'admin', apiKeyId: null });
  return { ...(adminKey ? { adminKey } : {}), demoCustomerKey, seeded: true };
}

/** How long a start waits for another instance to record the administrator it has just created. */
const RECORDING_WAIT_MS = 5000;

/**
 * Creates the administrator and records its id, once per database: instances starting together on an
 * empty database race here, and the one whose insert finds the email taken waits for the winner's record.
 */
async function recordAdmin(store: Pick<Store, 'settings' | 'users'>): Promise<string> {
  const admin = await store.users.insert({
    name: 'Administrator',
    email: 'admin@order-api.invalid',
    phone: null,
    address: null,
    nickname: 'admin',
    marketingAgreed: false,
  });
  if (admin !== 'email-taken') return store.settings.putIfAbsent('admin_user_id', String(admin.id));
  for (const deadline = Date.now() + RECORDING_WAIT_MS; Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const recorded = await store.settings.get('admin_user_id');
    if (recorded) return recorded;
  }
  throw new Error('the administrator user exists but admin_user_id is not recorded');
}
