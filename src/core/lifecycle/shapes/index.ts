/**
 * Request shapes: which members each caller sends, recorded, read back and exported signed.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { createRequestShapesService } from './request-shapes.js';
