import pg from 'pg';

/** How long to wait before connecting again after the listening connection was lost. */
const RECONNECT_MS = 1000;

/**
 * LISTEN on a dedicated server connection (a pooled one would be handed to others): reconnects after a
 * lost connection and then calls `onPayload('')`, since notifications sent meanwhile are gone and the
 * reader must catch up from the table. Resolves once listening; the returned function stops.
 */
export async function listenOnServer(
  url: string,
  searchPath: string | undefined,
  channel: string,
  onPayload: (payload: string) => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString: url,
      ...(searchPath ? { options: `-c search_path=${searchPath}` } : {}),
    });
    next.on('notification', (message) => {
      if (message.channel === channel) onPayload(message.payload ?? '');
    });
    next.on('error', () => {
      if (client !== next || stopped) return;
      client = undefined;
      next.end().catch(() => undefined);
      scheduleReconnect();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    client = next;
  };
  const scheduleReconnect = (): void => {
    retry = setTimeout(() => {
      if (stopped) return;
      connect().then(
        () => onPayload(''),
        () => scheduleReconnect(),
      );
    }, RECONNECT_MS);
    retry.unref();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}
