/**
 * The deprecation notice an admin asks for, as the usage store sends and records it (apart from
 * notice-mail.ts, which the brownout service imports, so that it does not depend on the event policy).
 */

import type { RegistryItem } from '@order-api/contract-registry';
import type { NoticeRequest } from '../../ports/index.js';
import { daysBefore } from '../../shared/index.js';
import { announcementOf, deprecationMail } from './notice-mail.js';

/** The callers a notice about an item goes to used it on this UTC day or later: the 30 days up to `at`. */
export const noticeSinceDay = (at: Date): string => daysBefore(at, 29);

/** Input of a notice: the keys whose owners are told, or (absent) every key that used the item in 30 days. */
export interface NoticeInput {
  apiKeyIds?: number[];
  channel: string;
  note?: string;
  notifiedAt?: Date;
}

/**
 * The deprecation notice to send and record: to the owners of the named keys (distinct), or of every key
 * that used the item in the 30 days up to `at`; with `mailNotices`, each owner's e-mail composed for its event.
 */
export function deprecationNotice(
  item: RegistryItem,
  input: NoticeInput,
  { at, recordedBy, mailNotices }: { at: Date; recordedBy: number; mailNotices: boolean },
): NoticeRequest {
  return {
    item: item.id,
    keys: input.apiKeyIds ? [...new Set(input.apiKeyIds)] : { usedSinceDay: noticeSinceDay(at) },
    channel: input.channel,
    note: input.note ?? null,
    notifiedAt: input.notifiedAt ?? at,
    recordedBy,
    announcement: announcementOf(item),
    ...(mailNotices ? { mail: (eventId: string) => deprecationMail(item, eventId) } : {}),
  };
}
