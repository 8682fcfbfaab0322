import type { ReactElement } from 'react';

export interface EnvRow {
  key: number;
  name: string;
  value: string;
  /** A variable of the config being edited: left empty, the host keeps its value. */
  kept?: boolean;
}

interface EnvRowsProps {
  rows: EnvRow[];
  onChange(rows: EnvRow[]): void;
}

let nextKey = 1;

export function newEnvRow(name = '', value = ''): EnvRow {
  nextKey += 1;
  return { key: nextKey, name, value };
}

export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Environment rows; values are password inputs (they are secrets more often than not). */
export function EnvRows({ rows, onChange }: EnvRowsProps): ReactElement {
  const update = (key: number, patch: Partial<EnvRow>): void =>
    onChange(rows.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  return (
    <div className="env-rows">
      {rows.map((r) => (
        <div key={r.key} className="env-row" data-invalid={r.name !== '' && !ENV_NAME.test(r.name)}>
          <input
            className="mono"
            placeholder="NAME"
            aria-label="variable name"
            value={r.name}
            spellCheck={false}
            // A renamed variable is a new one: the old value is not carried over to it.
            onChange={(e) => update(r.key, { name: e.target.value, kept: false })}
          />
          <input
            className="mono"
            type="password"
            placeholder={r.kept ? '(unchanged)' : 'value'}
            title={r.kept ? 'Leave empty to keep the value the host has' : undefined}
            aria-label={`value of ${r.name || 'variable'}`}
            autoComplete="off"
            value={r.value}
            onChange={(e) => update(r.key, { value: e.target.value })}
          />
          <button
            type="button"
            className="small"
            aria-label="remove variable"
            onClick={() => onChange(rows.filter((x) => x.key !== r.key))}
          >
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        className="small"
        data-testid="add-env"
        onClick={() => onChange([...rows, newEnvRow()])}
      >
        + variable
      </button>
      <small className="muted">
        Added to a minimal environment (HOME, PATH, USER…); the host keeps the values, the UI only
        shows names.
      </small>
    </div>
  );
}
