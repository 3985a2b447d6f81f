import type { EventType, NewEvent, StoredEvent } from '../shared/index.js';

/** Why an endpoint is disabled. */
export type DisabledReason = 'requested' | 'gone' | 'failing';

/** A URL that receives events; its secrets stay in the store except where a delivery is signed. */
export interface WebhookEndpoint {
  id: number;
  userId: number;
  /**
   * The API key that registered it (its successor after a rotation): a delivery that carries a deprecated
   * or watched item counts as a use by this key. Null when unknown (an endpoint older than the column, or
   * registered without a key); a claimed delivery then names the owner's newest active key.
   */
  apiKeyId: number | null;
  /** An admin's endpoint receives every event of its types; a customer's only its own. */
  allOwners: boolean;
  url: string;
  events: EventType[];
  description: string | null;
  disabledReason: DisabledReason | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** One attempt in an endpoint's log. */
export interface WebhookAttempt {
  id: number;
  eventId: string;
  eventType: EventType;
  attempt: number;
  status: number | null;
  durationMs: number;
  error: string | null;
  attemptedAt: Date;
  nextRetryAt: Date | null;
}

/** A delivery claimed for one attempt, with what signing and sending it needs. */
export interface ClaimedDelivery {
  id: number;
  /** Attempts made before this one. */
  attempts: number;
  endpoint: WebhookEndpoint;
  /** The secrets that sign now: the current one, and the previous one during its overlap. */
  secrets: string[];
  event: StoredEvent;
  /**
   * The lease this claim holds, as its fence: the attempt's outcome is recorded only while the delivery is
   * still pending under this lease (not claimed again after it ran out, not stopped meanwhile).
   */
  lease: string;
  /** Its owner's own deliveries a minute (WebhookLimits), when an admin set them. */
  ownerDeliveriesPerMinute?: number | null;
}

/** What an admin lifted (or lowered) for one owner; `null` is the server's default. */
export interface WebhookLimits {
  userId: number;
  /** Endpoints it may hold. */
  endpoints: number | null;
  /** Deliveries its endpoints get a minute, together. */
  deliveriesPerMinute: number | null;
}

/** The outcome of an attempt, to record in one transaction. */
export interface AttemptRecord {
  delivery: ClaimedDelivery;
  status: number | null;
  durationMs: number;
  error: string | null;
  state: 'succeeded' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
  failingSince: Date | null;
  /** Disables the endpoint, writing this event (`webhook_endpoint.disabled`) beside it. */
  disable: { reason: DisabledReason; event: NewEvent } | null;
}

/** Webhook endpoints, their queued deliveries and the log of attempts. */
export interface WebhookStore {
  /**
   * Registers an endpoint unless its owner holds `maxPerOwner` already, or another with its URL: decided
   * under a lock of the owner's row, so registrations at once cannot pass the cap together.
   */
  insert(
    endpoint: Pick<WebhookEndpoint, 'userId' | 'apiKeyId' | 'allOwners' | 'url' | 'events' | 'description'> & {
      secret: string;
    },
    maxPerOwner: number,
  ): Promise<WebhookEndpoint | 'limit-reached' | 'url-taken'>;
  get(id: number): Promise<WebhookEndpoint | undefined>;
  /** Newest first, below an id. */
  list(query: { userId?: number; beforeId?: number; limit: number }): Promise<WebhookEndpoint[]>;
  update(
    id: number,
    fields: { url?: string; events?: EventType[]; disabledReason?: DisabledReason | null },
  ): Promise<WebhookEndpoint | undefined>;
  delete(id: number): Promise<boolean>;
  /** One owner's webhook limits (undefined: there is no such user). */
  limits(userId: number): Promise<WebhookLimits | undefined>;
  /** Sets the whole of one owner's webhook limits (undefined: there is no such user). */
  setLimits(userId: number, limits: Omit<WebhookLimits, 'userId'>): Promise<WebhookLimits | undefined>;
  /** How many endpoints (of one user). */
  count(userId?: number): Promise<number>;
  /** Whether the user already has an endpoint with this URL (other than `exceptId`). */
  hasUrl(userId: number, url: string, exceptId?: number): Promise<boolean>;
  /** How many attempts an endpoint's log holds. */
  countAttempts(endpointId: number): Promise<number>;
  /** Sets a new secret; the current one keeps signing until `previousUntil`. */
  rotateSecret(id: number, secret: string, previousUntil: Date): Promise<WebhookEndpoint | undefined>;
  /** Newest first, below an id. */
  attempts(endpointId: number, query: { beforeId?: number; limit: number }): Promise<WebhookAttempt[]>;
  /** Queues an event for an endpoint again (a redelivery). */
  queue(endpointId: number, eventId: string): Promise<void>;
  /**
   * Claims up to `limit` due deliveries (FOR UPDATE SKIP LOCKED) and leases them for `leaseMs`; with `room`,
   * at most `room.perEndpoint` of one endpoint, less those `room.busy` says this instance has in flight.
   */
  claimDue(limit: number, leaseMs: number, room?: ClaimRoom): Promise<ClaimedDelivery[]>;
  /** Records one attempt's outcome in one transaction. */
  record(attempt: AttemptRecord): Promise<void>;
  /** Records the outcomes of several attempts, in as few statements as their kind allows. */
  recordAll(attempts: readonly AttemptRecord[]): Promise<void>;
  /**
   * Puts a claimed delivery back, untried, to be claimed again at `until` (its owner's delivery budget is
   * spent): no attempt is counted or logged. Only under the lease it was claimed with.
   */
  defer(delivery: ClaimedDelivery, until: Date): Promise<void>;
}

/** How many deliveries of one endpoint a claim may take. */
export interface ClaimRoom {
  perEndpoint: number;
  /** Attempts in flight by endpoint id. */
  busy: ReadonlyMap<number, number>;
}
