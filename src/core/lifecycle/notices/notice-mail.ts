/**
 * E-mail of notices about deprecated items: one message per notified user that has an address, composed in
 * the transaction of the user's event and queued there (sent by the mail dispatcher, src/mail).
 */

import type { RegistryItem } from '@order-api/contract-registry';
import type { BrownoutWindow, ComposeMail } from '../../ports/index.js';

/** The composer of a brownout window's notice mails, when the server mails. */
export const brownoutMails = (
  mailNotices: boolean,
  item: RegistryItem,
  window: Pick<BrownoutWindow, 'startsAt' | 'endsAt'>,
): ComposeMail | undefined => (mailNotices ? (eventId) => brownoutMail(item, window, eventId) : undefined);

/** The `data.object` of a `deprecation.announced` event (contract `DeprecationAnnouncement`). */
export const announcementOf = (item: RegistryItem) => ({
  item: item.id,
  name: item.name,
  deprecatedOn: item.deprecated,
  sunset: item.sunset,
  replacement: item.replacement,
  link: item.link,
});

/** The e-mail of a deprecation notice. */
export function deprecationMail(item: RegistryItem, eventId: string) {
  return {
    subject: `${item.name} is deprecated`,
    text:
      `${item.name} (${item.id}), which you used in the last 30 days, is deprecated` +
      (item.sunset ? ` and may be gone from ${item.sunset}` : '') +
      (item.replacement ? `; use ${item.replacement} instead` : '') +
      `. Details: ${item.link}\n\nEvent ${eventId}.`,
  };
}

/** The e-mail of a scheduled brownout window. */
export function brownoutMail(item: RegistryItem, window: Pick<BrownoutWindow, 'startsAt' | 'endsAt'>, eventId: string) {
  return {
    subject: `Brownout of ${item.name} on ${window.startsAt.toISOString()}`,
    text:
      `${item.name} (${item.id}) is deprecated and you used it in the last 30 days. Requests that use it are ` +
      `refused with BROWNOUT from ${window.startsAt.toISOString()} to ${window.endsAt.toISOString()}. ` +
      `Move off it: ${item.link}\n\nEvent ${eventId}.`,
  };
}
