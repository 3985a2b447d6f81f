import type { Core } from '../core/index.js';
import { toMinor } from '../core/shared/decimal-amounts.js';
import { pageJson, productJson, ratingJson } from './mappers.js';
import { createOptions, json, type RestHandlerGroup, replayHeader, type Schemas } from './respond.js';
import { callerOf, listInput, pathId } from './validated-request.js';

/** Products and ratings. */
export function createCatalogHandlers(core: Core) {
  return {
    async listProducts(request) {
      return json(request.c, 200, pageJson(await core.products.list(listInput(request.query)), productJson));
    },

    async createProduct(request) {
      const body = request.body as Schemas['ProductCreate'];
      const input = {
        name: body.name,
        sku: body.sku,
        price: toMinor(body.price),
        ...(body.imageUrl !== undefined ? { imageUrl: body.imageUrl } : {}),
        ...(body.stock !== undefined ? { stock: body.stock } : {}),
      };
      const { result, replayed } = await core.products.create(callerOf(request), input, createOptions(request));
      return json(request.c, 201, productJson(result), {
        Location: `${request.base}/products/${result.id}`,
        ...replayHeader(replayed),
      });
    },

    async getProduct(request) {
      return json(request.c, 200, productJson(await core.products.get(pathId(request, 'productId'))));
    },

    async getProductRating(request) {
      return json(request.c, 200, await core.products.rating(pathId(request, 'productId')));
    },

    async putMyRating(request) {
      const body = request.body as Schemas['MyRatingPut'];
      const productId = pathId(request, 'productId');
      const { rating, created } = await core.products.rate(callerOf(request), productId, body);
      return created
        ? json(request.c, 201, ratingJson(rating), { Location: `${request.base}/products/${productId}/ratings/me` })
        : json(request.c, 200, ratingJson(rating));
    },
  } satisfies RestHandlerGroup;
}
