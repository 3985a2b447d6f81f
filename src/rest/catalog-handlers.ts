import { toMinor } from '../core/decimal-amounts.js';
import type { Core } from '../core/index.js';
import { apiKeyJson, pageJson, productJson, ratingJson } from './mappers.js';
import { createOptions, json, noContent, type RestHandlerGroup, replayHeader, type Schemas } from './respond.js';
import { callerOf, listInput, pathId } from './validated-request.js';

/** Products, ratings and API keys. */
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
        price: toMinor(body.price, '/price'),
        ...(body.imageUrl !== undefined ? { imageUrl: body.imageUrl } : {}),
        ...(body.stock !== undefined ? { stock: body.stock } : {}),
      };
      const { result, replayed } = await core.products.create(callerOf(request), input, createOptions(request));
      return json(request.c, 201, productJson(result), {
        Location: `/v1/products/${result.id}`,
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
        ? json(request.c, 201, ratingJson(rating), { Location: `/v1/products/${productId}/ratings/me` })
        : json(request.c, 200, ratingJson(rating));
    },

    async createApiKey(request) {
      const body = request.body as Schemas['ApiKeyCreate'];
      const { apiKey, secret } = await core.apiKeys.issue(callerOf(request), {
        userId: body.userId,
        role: body.role,
        rateLimit: body.rateLimit ?? null,
      });
      // The secret is shown once: never cache this response.
      return json(request.c, 201, { ...apiKeyJson(apiKey), key: secret }, { 'Cache-Control': 'no-store' });
    },

    async updateApiKey(request) {
      const body = request.body as Schemas['ApiKeyPatch'];
      const id = pathId(request, 'apiKeyId');
      // Merge Patch: an absent member changes nothing, `null` clears the key's own budget.
      const apiKey =
        body.rateLimit === undefined
          ? await core.apiKeys.get(callerOf(request), id)
          : await core.apiKeys.setRateLimit(callerOf(request), id, body.rateLimit);
      return json(request.c, 200, apiKeyJson(apiKey));
    },

    async revokeApiKey(request) {
      await core.apiKeys.revoke(callerOf(request), pathId(request, 'apiKeyId'));
      return noContent(request.c);
    },
  } satisfies RestHandlerGroup;
}
