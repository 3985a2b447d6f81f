import { setMaxListeners } from 'node:events';
import { GraphQLError, type GraphQLFieldResolver } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../core/shared/errors.js';

/**
 * An operation's execution time budget (docs/decisions.md §5), started when its context is built. When it
 * runs out, resolvers still pending give up with a TIMEOUT error and later ones do not start. The abort
 * signal (for the core's cancellable work, such as a create waiting on its idempotency key) is made only
 * when something asks for it: an AbortController costs more than the rest of the budget, and a query
 * rarely needs one.
 */
export class TimeBudget {
  /** The TIMEOUT error, once the budget has run out. */
  expired: GraphQLError | undefined;
  readonly #timer: NodeJS.Timeout;
  #controller: AbortController | undefined;
  #expiry: Promise<never> | undefined;
  #fail: ((error: GraphQLError) => void) | undefined;

  constructor(readonly timeoutMs: number) {
    this.#timer = setTimeout(() => this.#expire(timeoutMs), timeoutMs);
    this.#timer.unref();
  }

  /** Aborted, with the TIMEOUT error as its reason, when the budget runs out. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      // Every pending piece of work may listen on this one signal.
      setMaxListeners(0, this.#controller.signal);
      if (this.expired) this.#controller.abort(this.expired);
    }
    return this.#controller.signal;
  }

  /** A resolver's pending value, or the TIMEOUT error if the budget runs out first. */
  race<T>(value: Promise<T>): Promise<T> {
    this.#expiry ??= new Promise<never>((_, reject) => {
      this.#fail = reject;
    });
    return Promise.race([value, this.#expiry]);
  }

  /** A new budget of the same length, starting now (each event of a subscription executes on its own). */
  renewed(): TimeBudget {
    return new TimeBudget(this.timeoutMs);
  }

  /** Ends the budget when execution ends: nothing is aborted after that. */
  end() {
    clearTimeout(this.#timer);
  }

  #expire(timeoutMs: number) {
    this.expired = new GraphQLError(`The operation ran longer than ${timeoutMs} ms and was stopped.`, {
      extensions: { code: 'TIMEOUT' satisfies ErrorCode },
    });
    this.#controller?.abort(this.expired);
    this.#fail?.(this.expired);
  }
}

/** What the time budget adds to the context. */
export interface TimeBudgetContext {
  timeBudget: TimeBudget;
}

/** Ends an operation's time budget when its execution ends. */
export function useTimeBudget(): Plugin {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone() {
          (args.contextValue as Partial<TimeBudgetContext>).timeBudget?.end();
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
              const budget = context.timeBudget;
              if (budget.expired) throw budget.expired;
              const value = (resolver as GraphQLFieldResolver<unknown, TimeBudgetContext>)(
                parent,
                args,
                context,
                info as never,
              );
              return value instanceof Promise ? budget.race(value) : value;
            }
          : resolver;
    }
  }
  return wrapped as T;
}
