/** UTC days, as the usage and shape records and the evidence name them (`YYYY-MM-DD`). */

const DAY_MS = 86_400_000;

/** The UTC day of an instant. */
export const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** The UTC day `days` whole days before an instant. */
export const daysBefore = (date: Date, days: number) => dayOf(new Date(date.getTime() - days * DAY_MS));
