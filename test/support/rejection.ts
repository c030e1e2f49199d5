/** The error a promise rejects with, checked to be of `type`: an answer, or another error, fails the test. */
export async function rejectionOf<E extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => E): Promise<E> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (error instanceof type) return error;
  throw new Error(`expected a ${type.name}, got ${error === null ? 'an answer' : String(error)}`);
}
