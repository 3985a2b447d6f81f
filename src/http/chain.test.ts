import { Hono, type MiddlewareHandler } from 'hono';
import { describe, expect, it } from 'vitest';
import { type ChainStep, chain } from './chain.js';

/** An app whose every request runs `steps` as one chain, then the route `GET /x` (answering 200 "route"). */
function appOf(steps: ChainStep<{ Variables: { seen: string[] } }>[]) {
  const app = new Hono<{ Variables: { seen: string[] } }>();
  const onError = (error: Error) => new Response(`error: ${error.message}`, { status: 418 });
  app.use('*', (c, next) => {
    c.set('seen', []);
    return next();
  });
  app.use('*', chain(steps, onError));
  app.get('/x', (c) => {
    c.get('seen').push('route');
    return c.text('route');
  });
  app.onError(() => new Response('app onError', { status: 500 }));
  return app;
}

/** A step that notes its name, hands on, and notes the status it saw after the rest. */
const around =
  (name: string): MiddlewareHandler<{ Variables: { seen: string[] } }> =>
  async (c, next) => {
    c.get('seen').push(name);
    await next();
    c.get('seen').push(`${name} saw ${c.res.status}`);
  };

describe('a chain of steps', () => {
  it('runs the steps in order, then the routes, and each step after next() sees the answer', async () => {
    let seen: string[] = [];
    const app = appOf([
      around('a'),
      (c, next) => {
        seen = c.get('seen');
        seen.push('b');
        return next();
      },
      around('c'),
    ]);
    const response = await app.request('/x');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('route');
    expect(seen).toEqual(['a', 'b', 'c', 'route', 'c saw 200', 'a saw 200']);
  });

  it('answers with the Response a step returns, or resolves to, and runs nothing after it', async () => {
    let seen: string[] = [];
    const refuse: ChainStep<{ Variables: { seen: string[] } }> = (c) => {
      seen = c.get('seen');
      return new Response('refused', { status: 401 });
    };
    const response = await appOf([around('a'), refuse, around('never')]).request('/x');
    expect(response.status).toBe(401);
    expect(seen).toEqual(['a', 'a saw 401']);

    const later = await appOf([around('a'), async () => new Response('later', { status: 406 })]).request('/x');
    expect(later.status).toBe(406);
    expect(await later.text()).toBe('later');
  });

  it('keeps the answer already given when a step returns a Response after next(), as Hono does', async () => {
    const response = await appOf([
      async (_c, next) => {
        await next();
        return new Response('late', { status: 202 });
      },
    ]).request('/x');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('route');
  });

  it('answers an error where it is thrown, so the steps around it see the error’s answer', async () => {
    for (const failing of [
      () => {
        throw new Error('sync');
      },
      async () => {
        throw new Error('async');
      },
      () => Promise.reject(new Error('rejected')),
    ] satisfies ChainStep<{ Variables: { seen: string[] } }>[]) {
      let seen: string[] = [];
      const response = await appOf([
        (c, next) => {
          seen = c.get('seen');
          return next();
        },
        around('a'),
        failing,
      ]).request('/x');
      expect(response.status).toBe(418);
      expect(await response.text()).toMatch(/^error: (sync|async|rejected)$/);
      expect(seen).toEqual(['a', 'a saw 418']);
    }
  });

  it('answers an error thrown after next() by the step that threw it', async () => {
    const response = await appOf([
      around('a'),
      async (_c, next) => {
        await next();
        throw new Error('after');
      },
    ]).request('/x');
    expect(response.status).toBe(418);
    expect(await response.text()).toBe('error: after');
  });
});
