/** E-mail for notices about deprecated items: one message per notified user that has an address. */
import type { RegistryItem } from './deprecation-registry.js';
import type { BrownoutWindow } from './ports/brownouts.js';
import type { Mailer } from './ports/mail.js';

/**
 * Mails each notified user after the events committed; a failed message is logged and does not undo the
 * notice (the event is the record, and its webhook delivery is retried by the dispatcher).
 */
export async function mailAll(
  mailer: Mailer | undefined,
  notified: ReadonlyArray<{ email: string | null; eventId: string }>,
  compose: (eventId: string) => { subject: string; text: string },
): Promise<void> {
  if (!mailer) return;
  for (const { email, eventId } of notified) {
    if (!email) continue;
    await mailer.send({ to: email, ...compose(eventId) }).catch((error: unknown) => {
      console.error(`notice mail to ${email} for ${eventId} failed: ${String(error)}`);
    });
  }
}

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
export function brownoutMail(item: RegistryItem, window: BrownoutWindow, eventId: string) {
  return {
    subject: `Brownout of ${item.name} on ${window.startsAt.toISOString()}`,
    text:
      `${item.name} (${item.id}) is deprecated and you used it in the last 30 days. Requests that use it are ` +
      `refused with BROWNOUT from ${window.startsAt.toISOString()} to ${window.endsAt.toISOString()}. ` +
      `Move off it: ${item.link}\n\nEvent ${eventId}.`,
  };
}
