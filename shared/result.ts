/** Errors cross boundaries as data (STYLE.md "Contracts once"). */
export interface AppError {
  code: string;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function err<T = never>(code: string, message: string): Result<T> {
  return { ok: false, error: { code, message } };
}
