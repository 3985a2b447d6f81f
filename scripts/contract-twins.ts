/**
 * The members that are one input of the core in two contracts (the same field of the same use case), as
 * the gate and the contract tests name them: REST components (`OrderCreate`, `OrderCreate.note`) and
 * shared parameters (`Size`), GraphQL input types, fields and arguments (`CreateOrderInput.note`,
 * `Query.orders.first`), proto fields (`ReserveRequest.sku`). Twins carry the same rules
 * (test/contracts/input-rules.test.ts), and a rule stated for a member whose twin stated it in the last
 * release states what the server already enforced (packages/contract-gate/src/breaking/input-rules.ts).
 *
 * A pair of objects pairs their members of the same name. Members with different meanings keep their own
 * rules and are not twins: `ReserveRequest.quantity` is an order's merged line (`OrderItem.quantity`),
 * not one line as sent (`OrderLineInput.quantity`).
 */
import { type Twin, twinLookup } from '@order-api/contract-gate';

/** Input objects of GraphQL and request schemas of REST that are the same core input. */
const OBJECTS: Twin[] = [
  ['graphql:CreateOrderInput', 'openapi:OrderCreate'],
  ['graphql:OrderLineInput', 'openapi:OrderLineInput'],
  ['graphql:AddressInput', 'openapi:Address'],
  ['graphql:UpdateOrderInput', 'openapi:OrderPatch'],
  ['graphql:ReplaceOrderInput', 'openapi:OrderReplace'],
  ['graphql:UpdateShipmentInput', 'openapi:ShipmentPatch'],
  ['graphql:CreateOrderDraftInput', 'openapi:OrderDraftCreate'],
  ['graphql:CreateUserInput', 'openapi:UserCreate'],
  ['graphql:UpdateUserInput', 'openapi:UserPatch'],
  ['graphql:ReplaceUserInput', 'openapi:UserReplace'],
  ['graphql:CreateProductInput', 'openapi:ProductCreate'],
  ['graphql:OrderFilter', 'openapi:OrderSearch'],
];

const LIST_ARGUMENTS: Record<string, string> = { first: 'Size', after: 'Cursor' };
const SORTS: Record<string, string> = {
  orders: 'OrderSort',
  ordersConnection: 'OrderSort',
  users: 'UserSort',
  products: 'ProductSort',
};
const CREATES = ['createOrder', 'cancelOrder', 'createOrderDraft', 'createUser', 'createProduct'];
const SKUS = ['ReserveRequest', 'ReleaseRequest', 'GetStockRequest', 'AdjustStockRequest', 'WatchStockRequest'];

/** Single members: list arguments and parameters, mutation arguments, the proto's fields. */
const MEMBERS: Twin[] = [
  ...Object.entries(SORTS).flatMap(([field, sort]): Twin[] => [
    [`graphql:Query.${field}.sort`, `openapi:${sort}`],
    ...Object.entries(LIST_ARGUMENTS)
      .filter(([argument]) => argument === 'first' || field !== 'orders')
      .map(([argument, parameter]): Twin => [`graphql:Query.${field}.${argument}`, `openapi:${parameter}`]),
  ]),
  ...CREATES.map((field): Twin => [`graphql:Mutation.${field}.idempotencyKey`, 'openapi:IdempotencyKey']),
  ['graphql:Mutation.updateOrder.input', 'openapi:OrderPatch'],
  ['graphql:Mutation.updateShipment.input', 'openapi:ShipmentPatch'],
  ['graphql:Mutation.updateUser.input', 'openapi:UserPatch'],
  ['graphql:Mutation.cancelOrder.reason', 'openapi:CancellationCreate.reason'],
  ['graphql:Mutation.rateProduct.score', 'openapi:MyRatingPut.score'],
  ['graphql:Mutation.rateProduct.comment', 'openapi:MyRatingPut.comment'],
  ...SKUS.map((message): Twin => [`proto:${message}.sku`, 'openapi:ProductCreate.sku']),
  ['proto:ReserveRequest.quantity', 'openapi:OrderItem.quantity'],
  // The order id is the decimal text of a REST `Id` (./proto-rules.ts reads its pattern as that).
  ['proto:ReserveRequest.order_id', 'openapi:Id'],
  ['proto:ReleaseRequest.order_id', 'openapi:Id'],
  // A key's request shapes: `me { requestShapes }` and `GET /v1/api-keys/me/request-shapes`.
  ['graphql:User.requestShapes.days', 'openapi:ShapeDays'],
  ['graphql:User.requestShapes.first', 'openapi:Size'],
  ['graphql:User.requestShapes.after', 'openapi:Cursor'],
  ['graphql:User.requestShapes.sort', 'openapi:RequestShapeSort'],
];

/** Every twin pair: the objects, then the single members. */
export const TWINS: readonly Twin[] = [...OBJECTS, ...MEMBERS];

/**
 * The twins of an item (`graphql:CreateOrderInput.note` → `openapi:OrderCreate.note`), through a member
 * pair or through the pair of the objects that hold it.
 */
export const twinsOf = twinLookup(TWINS);
