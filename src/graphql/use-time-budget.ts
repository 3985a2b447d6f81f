import { setMaxListeners } from 'node:events';
import { GraphQLError, type GraphQLFieldResolver } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../core/errors.js';

/** What the time budget adds to the context: the signal resolvers give up on, and its timer. */
export interface TimeBudgetContext {
  signal: AbortSignal;
  timer?: NodeJS.Timeout;
}

/**
 * The execution time budget (docs/decisions.md §5), started when an operation's context is built: a
 * signal that aborts with a TIMEOUT error after `timeoutMs`. Resolvers wrapped by `withTimeout` give up
 * on it; `useTimeBudget` ends the timer when execution ends.
 */
export function startTimeBudget(timeoutMs: number): Required<TimeBudgetContext> {
  const controller = new AbortController();
  // Every pending resolver listens on this one signal; a 100-item list has hundreds at once.
  setMaxListeners(0, controller.signal);
  const timer = setTimeout(
    () =>
      controller.abort(
        new GraphQLError(`The operation ran longer than ${timeoutMs} ms and was stopped.`, {
          extensions: { code: 'TIMEOUT' satisfies ErrorCode },
        }),
      ),
    timeoutMs,
  );
  timer.unref();
  return { signal: controller.signal, timer };
}

/** Ends an operation's time budget when its execution ends. */
export function useTimeBudget(): Plugin {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone() {
          clearTimeout((args.contextValue as Partial<TimeBudgetContext>).timer);
        },
      };
    },
  };
}

/**
 * Makes every resolver give up when the operation's budget runs out: the field becomes `null` with the
 * TIMEOUT error, fields already resolved stay, and the response is 200 with partial data (docs/decisions.md §5).
 */
export function withTimeout<T extends Record<string, Record<string, unknown>>>(map: T): T {
  const wrapped: Record<string, Record<string, unknown>> = {};
  for (const [type, fields] of Object.entries(map)) {
    wrapped[type] = {};
    for (const [field, resolver] of Object.entries(fields)) {
      (wrapped[type] as Record<string, unknown>)[field] =
        typeof resolver === 'function'
          ? (parent: unknown, args: unknown, context: TimeBudgetContext, info: unknown) => {
              if (context.signal.aborted) throw context.signal.reason;
              const value = (resolver as GraphQLFieldResolver<unknown, TimeBudgetContext>)(
                parent,
                args,
                context,
                info as never,
              );
              if (!(value instanceof Promise)) return value;
              return new Promise((resolve, reject) => {
                const onAbort = () => reject(context.signal.reason);
                context.signal.addEventListener('abort', onAbort, { once: true });
                value.then(resolve, reject).finally(() => context.signal.removeEventListener('abort', onAbort));
              });
            }
          : resolver;
    }
  }
  return wrapped as T;
}
