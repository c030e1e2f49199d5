/** A step that cannot succeed however often it is retried (bad answer shape, unknown tool...). */
export class StepError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'StepError';
  }
}
