import type { Caller, Core } from '../../src/core/index.js';
import type { UsageEvent, UsageRecorder } from '../../src/core/lifecycle/usage/usage-recorder.js';
import type { Store, WebhookEndpoint } from '../../src/core/ports/index.js';
import { DomainError } from '../../src/core/shared/errors.js';
import { minor } from '../../src/core/shared/money.js';

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

/** A user row written straight to the store (no address, no core rules); its id. */
export async function storeUser(store: Pick<Store, 'users'>, name: string): Promise<number> {
  const user = await store.users.insert({
    name,
    email: `${name.toLowerCase().replace(/\W+/g, '-')}-${unique()}@example.com`,
    phone: null,
    address: null,
    nickname: null,
    marketingAgreed: false,
  });
  if (user === 'email-taken') throw new Error('unreachable: the e-mail is unique');
  return user.id;
}

/**
 * A webhook endpoint written straight to the store, with no cap: `order.created` for every owner unless
 * `fields` say otherwise.
 */
export async function storeEndpoint(
  store: Pick<Store, 'webhooks'>,
  fields: Pick<WebhookEndpoint, 'userId' | 'url'> & Partial<Pick<WebhookEndpoint, 'apiKeyId' | 'allOwners' | 'events'>>,
): Promise<WebhookEndpoint> {
  const endpoint = await store.webhooks.insert(
    {
      apiKeyId: null,
      allOwners: true,
      events: ['order.created'],
      description: null,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      ...fields,
    },
    Number.POSITIVE_INFINITY,
  );
  if (typeof endpoint === 'string') throw new Error(`endpoint not registered: ${endpoint}`);
  return endpoint;
}

/** An admin caller backed by a real user row. */
export async function makeAdmin(store: Store): Promise<Caller> {
  return { userId: await storeUser(store, 'Test Admin'), role: 'admin', apiKeyId: null };
}

/** A customer caller with an address on file. */
export async function makeCustomer(core: Core, admin: Caller, name = 'Customer'): Promise<Caller> {
  const { result: user } = await core.users.create(admin, {
    name,
    email: `${name.toLowerCase().replace(/\W+/g, '.')}-${unique()}@example.com`,
    address: { zipCode: '04524', line1: '12 Harbor Road', line2: null },
  });
  return { userId: user.id, role: 'customer', apiKeyId: null };
}

/** A product with stock; `price` in minor units. */
export async function makeProduct(core: Core, admin: Caller, price = 1_000, stock = 100, name = 'Widget') {
  return (await core.products.create(admin, { name, sku: `SKU-${unique()}`, price: minor(price), stock })).result;
}

/** The catalog code a core call failed with, or `resolved`. */
export const codeOf = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'resolved',
    (error: { code?: string }) => error.code ?? String(error),
  );

/** What a refused call answers, as a client reads it: its code, detail and Retry-After (seconds). */
export async function refusalOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { code: error.code, detail: error.detail, retryAfterSeconds: error.retryAfterSeconds };
  }
  throw new Error('expected a refusal, and the call succeeded');
}

/** A usage recorder that keeps what it is handed in `events`, for tests of what gets counted. */
export function recordingUsage(): { recorder: UsageRecorder; events: UsageEvent[] } {
  const events: UsageEvent[] = [];
  const recorder: UsageRecorder = {
    record: (event) => events.push(event),
    flush: async () => undefined,
    close: async () => undefined,
    dropped: 0,
  };
  return { recorder, events };
}
