/**
 * The naming rule's forms (../src/breaking/named-items.ts): which changed or added items the gate finds in
 * each contract, and which backticked names in a bullet name them. In memory, no git and no buf.
 */
import { describe, expect, it } from 'vitest';
import { parseChangelog } from '../src/breaking/changelog.js';
import type { Contracts } from '../src/breaking/gate.js';
import { checkNamed, meaningChanges } from '../src/breaking/named-items.js';

const PROTO = `syntax = "proto3";
package inventory.v1;
// Inventory holds stock.
service Inventory {
  // Reserve holds stock for one order line.
  rpc Reserve(ReserveRequest) returns (ReserveRequest);
}
// ReserveRequest asks to hold stock.
message ReserveRequest {
  // The stock-keeping unit.
  string sku = 1;
}
`;
const SDL = `type Query {
  "Orders, newest first."
  orders("Page size." first: Int = 20): [Order!]!
}

type Order {
  "The order's total, VAT included."
  amount: Float!
}
`;

function contracts(): Contracts {
  return {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Orders', version: '1.0.0', description: 'The Order API.' },
      paths: {
        '/v1/orders': {
          get: {
            operationId: 'listOrders',
            summary: 'List orders',
            parameters: [
              { name: 'status', in: 'query', description: 'Orders in this state.', schema: { type: 'string' } },
            ],
            responses: { '200': { description: 'The orders.' } },
          },
        },
      },
      components: {
        schemas: {
          Order: { type: 'object', properties: { amount: { type: 'number', description: 'VAT included.' } } },
        },
        responses: { TooManyRequests: { description: 'Over the rate budget.' } },
      },
    },
    graphql: SDL,
    proto: new Map([['inventory/v1/inventory.proto', PROTO]]),
  };
}

/** The unnamed items of a head against the base, given the Unreleased body. */
function unnamed(edit: (head: Contracts) => void, body: string): string[] {
  const base = contracts();
  const head = contracts();
  edit(head);
  const changelog = parseChangelog(`# Changelog\n\n## [Unreleased]\n\n${body}\n`);
  return checkNamed(changelog, meaningChanges(base, head)).map((finding) => `${finding.rule} ${finding.item}`);
}

type Json = Record<string, any>;
const listOrders = (head: Contracts) => (head.openapi.paths as Json)['/v1/orders'].get;

describe('the items the naming rule finds, and the names that name them', () => {
  it('finds nothing when nothing changed', () => {
    expect(meaningChanges(contracts(), contracts())).toEqual([]);
  });

  it('names an operation by method and path or by operationId, a parameter also beside its operation', () => {
    const edit = (head: Contracts) => {
      listOrders(head).description = 'Newest first.';
      listOrders(head).parameters[0].description = 'Orders in any of these states.';
    };
    expect(unnamed(edit, '### Changed\n\n- REST [docs]: clearer `Order.amount`.\n')).toEqual([
      'description-changed-unnamed GET /v1/orders',
      'description-changed-unnamed GET /v1/orders status',
    ]);
    expect(unnamed(edit, '### Changed\n\n- REST [docs]: `listOrders` and `listOrders.status`.\n')).toEqual([]);
    expect(unnamed(edit, '### Changed\n\n- REST [docs]: `GET /v1/orders` explains `status`.\n')).toEqual([]);
    // The operation and the member's short name name it in one bullet, not in two.
    expect(unnamed(edit, '### Changed\n\n- REST [docs]: `GET /v1/orders`.\n- REST [docs]: `status`.\n')).toEqual([
      'description-changed-unnamed GET /v1/orders status',
    ]);
  });

  it('names a response that refers to a shared one by the shared name; an added schema covers its properties', () => {
    const edit = (head: Contracts) => {
      listOrders(head).responses['429'] = { $ref: '#/components/responses/TooManyRequests' };
      (head.openapi.components as Json).schemas.Gift = {
        type: 'object',
        properties: { note: { type: 'string', description: 'The note.' } },
      };
    };
    expect(unnamed(edit, '### Added\n\n- REST: gifts.\n')).toEqual([
      'addition-unnamed Gift',
      'addition-unnamed GET /v1/orders 429',
    ]);
    expect(unnamed(edit, '### Added\n\n- REST: `Gift`; every operation documents `TooManyRequests`.\n')).toEqual([]);
  });

  it('counts a bullet of the item’s own contract only', () => {
    const edit = (head: Contracts) => {
      head.graphql = SDL.replace('VAT included', 'VAT excluded');
    };
    expect(unnamed(edit, '### Changed\n\n- REST [docs]: `Order.amount`.\n')).toEqual([
      'description-changed-unnamed Order.amount',
    ]);
    expect(unnamed(edit, '### Changed\n\n- GraphQL [docs]: `Order.amount`.\n')).toEqual([]);
  });

  it('finds a changed GraphQL default, named as `Query.orders.first` or `Query.orders(first:)`', () => {
    const edit = (head: Contracts) => {
      head.graphql = SDL.replace('first: Int = 20', 'first: Int = 50');
    };
    expect(unnamed(edit, '### Changed\n\n- GraphQL [docs]: `Query.orders`.\n')).toEqual([
      'description-changed-unnamed Query.orders.first',
    ]);
    expect(unnamed(edit, '### Changed\n\n- GraphQL [docs]: `Query.orders(first:)`.\n')).toEqual([]);
  });

  it('finds a reworded proto comment, an rpc named with or without its service', () => {
    const edit = (head: Contracts) => {
      head.proto.set(
        'inventory/v1/inventory.proto',
        PROTO.replace('// Reserve holds stock for one order line.', '// Reserve holds stock; idempotent.'),
      );
    };
    expect(unnamed(edit, '### Changed\n\n- gRPC [docs]: `ReserveRequest.sku`.\n')).toEqual([
      'description-changed-unnamed Inventory.Reserve',
    ]);
    expect(unnamed(edit, '### Changed\n\n- gRPC [docs]: `Reserve`.\n')).toEqual([]);
    expect(unnamed(edit, '### Changed\n\n- gRPC [docs]: `inventory.v1.Inventory.Reserve`.\n')).toEqual([]);
  });
});
