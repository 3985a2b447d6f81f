/**
 * Signed evidence documents (Ed25519 over canonical JSON).
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { type Signed, signatureProblem, signDocument } from './evidence-signature.js';
