import type { ApiKey, OrderDraft, Product, Rating, Reservation, Stock, User } from '../core/shared/model.js';
import { minor } from '../core/shared/money.js';
import { type Scope, scopesOfRole } from '../core/shared/scope-catalog.js';

/** Whether a statement failed on a unique index (an e-mail or SKU in use). */
export const isUniqueViolation = (error: unknown) => (error as { code?: string })?.code === '23505';

export const toUser = (row: Record<string, unknown>): User => ({
  id: row.id as number,
  name: row.name as string,
  email: row.email as string,
  phone: row.phone as string | null,
  address: row.address as User['address'],
  nickname: row.nickname as string | null,
  marketingAgreed: row.marketing_agreed as boolean,
  createdAt: row.created_at as Date,
  lastLoginAt: row.last_login_at as Date | null,
  version: row.version as number,
});

export const toApiKey = (row: Record<string, unknown>): ApiKey => ({
  id: row.id as number,
  userId: row.user_id as number,
  role: row.role as ApiKey['role'],
  label: (row.label as string | null) ?? null,
  // NULL: a key inserted by the previous release during a rolling deploy holds what its role allows.
  scopes: (row.scopes as Scope[] | null) ?? scopesOfRole(row.role as ApiKey['role']),
  createdAt: row.created_at as Date,
  revokedAt: row.revoked_at as Date | null,
  expiresAt: (row.expires_at as Date | null) ?? null,
  lastUsedAt: (row.last_used_at as Date | null) ?? null,
  replacedBy: (row.replaced_by as number | null) ?? null,
  chainId: Number(row.chain_id ?? row.id),
  rateLimit: (row.rate_limit as number | null) ?? null,
});

export const toRating = (row: Record<string, unknown>): Rating => ({
  productId: row.product_id as number,
  userId: row.user_id as number,
  score: row.score as number,
  comment: row.comment as string | null,
  createdAt: row.created_at as Date,
  updatedAt: row.updated_at as Date,
});

/** The product columns with the aggregate rating (average to two decimals, and the count). */
export const PRODUCT_COLUMNS = `p.*, r.average AS rating, COALESCE(r.count, 0) AS rating_count`;
export const PRODUCT_RATINGS = `LEFT JOIN LATERAL (
  SELECT round(avg(score)::numeric, 2) AS average, count(*) AS count FROM ratings WHERE product_id = p.id
) r ON true`;

export const toProduct = (row: Record<string, unknown>): Product => ({
  id: row.id as number,
  name: row.name as string,
  imageUrl: row.image_url as string | null,
  sku: row.sku as string,
  price: minor(row.price_minor as number),
  rating: (row.rating as number | null) ?? null,
  ratingCount: row.rating_count as number,
  createdAt: row.created_at as Date,
});

export const toStock = (row: Record<string, unknown>): Stock => ({
  sku: row.sku as string,
  onHand: row.on_hand as number,
  reserved: row.reserved as number,
});

export const toReservation = (row: Record<string, unknown>): Reservation => ({
  orderId: row.order_id as number,
  sku: row.sku as string,
  quantity: row.quantity as number,
  state: row.state as Reservation['state'],
  createdAt: row.created_at as Date,
  expiresAt: row.expires_at as Date | null,
});

export const toDraft = (row: Record<string, unknown>): OrderDraft => ({
  id: row.id as number,
  userId: row.user_id as number,
  items: row.items as OrderDraft['items'],
  amount: minor(row.amount_minor as number),
  status: row.status as OrderDraft['status'],
  orderId: row.order_id as number | null,
  createdAt: row.created_at as Date,
});
