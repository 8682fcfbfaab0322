import type { ReactElement } from 'react';

interface SegmentedProps<T extends string> {
  label: string;
  options: readonly T[];
  value: NoInfer<T>;
  onChange(value: NoInfer<T>): void;
  disabled?: boolean;
  /** data-testid of each button: `${testIdPrefix}${option}`. */
  testIdPrefix?: string;
}

/** A row of mutually exclusive buttons (radio semantics, aria-pressed for tests and a11y). */
export function Segmented<T extends string>({
  label,
  options,
  value,
  onChange,
  disabled,
  testIdPrefix,
}: SegmentedProps<T>): ReactElement {
  return (
    <fieldset className="segmented" aria-label={label}>
      {options.map((option) => (
        <button
          key={option}
          type="button"
          aria-pressed={option === value}
          data-active={option === value}
          data-testid={testIdPrefix ? `${testIdPrefix}${option}` : undefined}
          disabled={disabled}
          onClick={() => option !== value && onChange(option)}
        >
          {option}
        </button>
      ))}
    </fieldset>
  );
}
