/**
 * The after-commit callbacks of one transaction (`Transaction.afterCommit`), and the call that runs them
 * once it committed; a transaction that rolls back never calls it.
 */
export function commitHooks() {
  const callbacks: Array<() => void> = [];
  return {
    add: (callback: () => void) => void callbacks.push(callback),
    committed: () => {
      for (const callback of callbacks) callback();
    },
  };
}
