import type { ReactElement } from 'react';
import type { FormField } from './schema-form';

interface FieldInputProps {
  field: FormField;
  value: string;
  error: string | undefined;
  onChange(value: string): void;
}

/** One generated form field; its input kind follows the field kind. */
export function FieldInput({ field, value, error, onChange }: FieldInputProps): ReactElement {
  const id = `arg-${field.name}`;
  return (
    <div className="field" data-kind={field.kind} data-invalid={error !== undefined}>
      <label htmlFor={id}>
        <span className="mono">{field.name}</span>
        {field.required ? (
          <span className="required" title="required">
            *
          </span>
        ) : null}
        <span className="field-kind">
          {field.kind === 'string-array' ? 'string[] (one per line)' : field.kind}
        </span>
      </label>
      <Control id={id} field={field} value={value} onChange={onChange} />
      {field.description || field.title ? (
        <small className="muted">{field.description ?? field.title}</small>
      ) : null}
      {error ? <small className="error-text">{error}</small> : null}
    </div>
  );
}

function Control({
  id,
  field,
  value,
  onChange,
}: {
  id: string;
  field: FormField;
  value: string;
  onChange(v: string): void;
}): ReactElement {
  switch (field.kind) {
    case 'boolean':
      return (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{field.required ? '— choose —' : '(omit)'}</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      );
    case 'enum':
      return (
        <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">{field.required ? '— choose —' : '(omit)'}</option>
          {field.options.map((o, i) => (
            <option key={JSON.stringify(o)} value={String(i)}>
              {JSON.stringify(o)}
            </option>
          ))}
        </select>
      );
    case 'number':
    case 'integer':
      return (
        <input
          id={id}
          type="text"
          inputMode={field.kind === 'integer' ? 'numeric' : 'decimal'}
          className="mono"
          value={value}
          placeholder={placeholder(field)}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    case 'string-array':
    case 'json':
      return (
        <textarea
          id={id}
          className="mono"
          rows={field.kind === 'json' ? 4 : 3}
          value={value}
          placeholder={field.kind === 'json' ? 'JSON value' : 'one item per line'}
          spellCheck={false}
          onChange={(e) => onChange(e.target.value)}
        />
      );
    case 'string':
      return (
        <input
          id={id}
          type="text"
          value={value}
          placeholder={placeholder(field)}
          spellCheck={false}
          onChange={(e) => onChange(e.target.value)}
        />
      );
  }
}

function placeholder(field: FormField): string {
  const range = [
    field.minimum !== null && Math.abs(field.minimum) < 1e15 ? `≥ ${field.minimum}` : null,
    field.maximum !== null && Math.abs(field.maximum) < 1e15 ? `≤ ${field.maximum}` : null,
  ].filter(Boolean);
  return range.length > 0 ? range.join(', ') : field.required ? 'required' : 'optional';
}
