/** Runs a bench script's `main` and exits with its outcome: open handles (pools, servers) never hold the process. */
export function runMain(main: () => Promise<unknown>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
