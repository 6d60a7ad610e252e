/** JSONata's errors are plain objects with a message and, when known, a position. */
export function describeJsonataError(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) {
    const { message, position } = error as { message: string; position?: number };
    return position !== undefined ? `${message} (at character ${position})` : message;
  }
  return String(error);
}

/** JSONata's error code (e.g. `D1012`), when the error has one. */
export function jsonataCode(error: unknown): string | undefined {
  if (error && typeof error === 'object' && 'code' in error && typeof (error as { code: unknown }).code === 'string') return (error as { code: string }).code;
  return undefined;
}
