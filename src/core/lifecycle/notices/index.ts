/**
 * Deprecation and brownout notices: who is told, and the mail that tells them.
 *
 * What other rooms of the core may use; the rest of the room is its own (rule rooms-meet-at-their-index, .dependency-cruiser.cjs).
 */
export { deprecationNotice, type NoticeInput } from './deprecation-notice.js';
export { brownoutMails } from './notice-mail.js';
