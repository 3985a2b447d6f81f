import { createCore } from '../../src/core/index.js';
import { createInventoryService } from '../../src/core/inventory/inventory.js';
import { createInventoryClient } from '../../src/grpc/inventory-client.js';
import type { Database } from '../../src/store/database.js';
import { createSqlStore } from '../../src/store/sql-store.js';

/**
 * The core over a bench database, as the server builds it but without transports (the inventory in
 * process): what the benches that time the core alone (paging, scale) call.
 */
export function benchCore(db: Database, { requestTimeoutMs = 2000 } = {}) {
  const store = createSqlStore(db);
  return createCore({
    store,
    inventory: createInventoryClient(createInventoryService(store), {}),
    vatRate: 0.1,
    requestTimeoutMs,
    cursorSecret: 'bench'.repeat(8),
  });
}
