/**
 * A promise a test opens when it chooses: to hold a step of the code under test (a commit, an
 * acknowledgement, a listing) until the test has set up what must happen meanwhile, or to learn
 * that the code has reached a point. (Node 20 has no `Promise.withResolvers`.)
 */
export interface Gate {
  /** Settles once `open` is called. */
  opened: Promise<void>;
  open(): void;
}

export function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
