import type { ReactElement } from 'react';

/** An inline error line under a form or a button; renders nothing without a message. */
export function ErrorText({
  message,
}: {
  message: string | null | undefined;
}): ReactElement | null {
  if (!message) return null;
  return (
    <p className="error-text" role="alert">
      {message}
    </p>
  );
}
