/**
 * The size bounds of what a client sends, shared by every transport. The REST contract states each one
 * (`maxLength`, `maximum`, `maxItems` in contracts/openapi.yaml) and openapi-backend checks it there
 * first; the core checks them again so that GraphQL (and any later transport) gives the same
 * `VALIDATION_FAILED` answer for the same input. Each bound is at or above what the product stored and
 * accepted before it was written down.
 */
import { DomainError, type Violation } from './errors.js';

/** Longest text of each bounded member, in characters (UTF-16 code units, as JSON Schema's `maxLength`). */
export const MAX_LENGTH = {
  note: 500,
  couponCode: 50,
  cancelReason: 500,
  userName: 100,
  email: 254,
  phone: 30,
  nickname: 50,
  searchText: 200,
  zipCode: 20,
  addressLine: 200,
  productName: 200,
  sku: 64,
  imageUrl: 2000,
  ratingComment: 1000,
  carrier: 100,
  trackingNumber: 100,
} as const;

/** Highest price and initial stock of a product (`ProductCreate.price`, `ProductCreate.stock`). */
export const MAX_PRODUCT_PRICE = 1_000_000;
export const MAX_PRODUCT_STOCK = 1_000_000;

/** Most lines of one order (`OrderCreate.items`). */
export const MAX_ORDER_LINES = 100;

/** Most units of one order line (`OrderLineInput.quantity`). */
export const MAX_LINE_QUANTITY = 1000;

/** Refuses a string longer than `max`; `name` is the member's JSON Pointer (`/note`) or parameter name. */
export function checkLength(
  value: string | null | undefined,
  max: number,
  name: string,
  where: Violation['in'] = 'body',
) {
  if (typeof value === 'string' && value.length > max) {
    const message = `must be at most ${max} characters`;
    throw new DomainError('VALIDATION_FAILED', `${name} ${message}.`, [{ in: where, name, message }]);
  }
}

/** Refuses an array with more than `max` items. */
export function checkItems(value: readonly unknown[] | undefined, max: number, name: string) {
  if (value !== undefined && value.length > max) {
    const message = `must have at most ${max} items`;
    throw new DomainError('VALIDATION_FAILED', `${name} ${message}.`, [{ in: 'body', name, message }]);
  }
}

/** Refuses a number above `max`. */
export function checkMaximum(value: number | undefined, max: number, name: string) {
  if (value !== undefined && value > max) {
    const message = `must be at most ${max}`;
    throw new DomainError('VALIDATION_FAILED', `${name} ${message}.`, [{ in: 'body', name, message }]);
  }
}

/** An address's text, at `at` (`/shippingAddress`, `/address`). */
interface AddressText {
  zipCode?: string;
  line1?: string;
  line2?: string | null;
}

function checkAddress(address: AddressText | null | undefined, at: string) {
  if (!address) return;
  checkLength(address.zipCode, MAX_LENGTH.zipCode, `${at}/zipCode`);
  checkLength(address.line1, MAX_LENGTH.addressLine, `${at}/line1`);
  checkLength(address.line2, MAX_LENGTH.addressLine, `${at}/line2`);
}

/** The bounds of an order's text (placing, patching or replacing it). */
export function checkOrderText(input: {
  note?: string | null;
  couponCode?: string | null;
  shippingAddress?: AddressText | null;
}) {
  checkLength(input.note, MAX_LENGTH.note, '/note');
  checkLength(input.couponCode, MAX_LENGTH.couponCode, '/couponCode');
  checkAddress(input.shippingAddress, '/shippingAddress');
}

/** The bounds of an order's lines. */
export function checkOrderLines(items: ReadonlyArray<{ quantity: number }> | undefined) {
  checkItems(items, MAX_ORDER_LINES, '/items');
  for (const [index, line] of (items ?? []).entries()) {
    checkMaximum(line.quantity, MAX_LINE_QUANTITY, `/items/${index}/quantity`);
  }
}

/** The bounds of a user's text (creating, patching or replacing one). */
export function checkUserText(input: {
  name?: string;
  email?: string;
  phone?: string | null;
  nickname?: string | null;
  address?: AddressText | null;
}) {
  checkLength(input.name, MAX_LENGTH.userName, '/name');
  checkLength(input.email, MAX_LENGTH.email, '/email');
  checkLength(input.phone, MAX_LENGTH.phone, '/phone');
  checkLength(input.nickname, MAX_LENGTH.nickname, '/nickname');
  checkAddress(input.address, '/address');
}

/** The bounds of a new product. */
export function checkProductInput(input: {
  name: string;
  sku: string;
  price: number;
  imageUrl?: string | null;
  stock?: number;
}) {
  checkLength(input.name, MAX_LENGTH.productName, '/name');
  checkLength(input.sku, MAX_LENGTH.sku, '/sku');
  checkLength(input.imageUrl, MAX_LENGTH.imageUrl, '/imageUrl');
  checkMaximum(input.price, MAX_PRODUCT_PRICE, '/price');
  checkMaximum(input.stock, MAX_PRODUCT_STOCK, '/stock');
}

/** The bounds of a shipment's carrier data. */
export function checkShipmentText(patch: { carrier?: string | null; trackingNumber?: string | null }) {
  checkLength(patch.carrier, MAX_LENGTH.carrier, '/carrier');
  checkLength(patch.trackingNumber, MAX_LENGTH.trackingNumber, '/trackingNumber');
}
