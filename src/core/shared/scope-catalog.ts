/**
 * The scopes an API key can hold and what each role allows; a leaf module (no imports), so that the model
 * and the caller can name a scope. The rule that checks them is ./scopes.ts.
 */

/** Every scope a key can hold, in the order the contract lists them. */
export const SCOPES = [
  'orders:read',
  'orders:write',
  'users:read',
  'users:write',
  'ratings:write',
  'catalog:write',
  'keys:read',
  'keys:write',
  'webhooks:write',
  'admin',
] as const;

/** A scope a key can hold. */
export type Scope = (typeof SCOPES)[number];

/**
 * What an operation or field declares: a scope; `public` for what needs no key at all; `self` for what
 * any key may do about itself whatever its scopes (read its own usage): the use case checks a scope if
 * the request reaches beyond the calling key.
 */
export type ScopeDeclaration = Scope | 'public' | 'self';

/** The declaration of operations that need no key (product reads, health). */
export const PUBLIC = 'public';

/** The declaration of operations any key may call about itself (./scopes.ts). */
export const SELF = 'self';

/**
 * The scopes a role allows. A customer acts on its own user, orders, ratings, keys and webhook endpoints; the
 * catalog and the operator's reports (`admin`) are for admins.
 */
const ROLE_SCOPES = {
  admin: SCOPES,
  customer: [
    'orders:read',
    'orders:write',
    'users:read',
    'users:write',
    'ratings:write',
    'keys:read',
    'keys:write',
    'webhooks:write',
  ],
} as const satisfies Record<string, readonly Scope[]>;

/** A role, as ROLE_SCOPES knows it (the model's `Role`). */
type RoleName = keyof typeof ROLE_SCOPES;

/** The scopes a role allows: every key's upper bound, and the scopes of a key issued without a list. */
export function scopesOfRole(role: RoleName): readonly Scope[] {
  return ROLE_SCOPES[role];
}

/** Whether a string is a scope (a declaration read from a contract, a value from a request). */
export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
