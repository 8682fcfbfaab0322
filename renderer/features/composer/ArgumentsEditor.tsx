/**
 * Arguments of one tool: the form generated from its inputSchema, or the raw JSON editor.
 * Switching keeps what was typed (form → JSON and JSON → form both convert).
 */
import { type ReactElement, useEffect, useMemo, useState } from 'react';
import type { ToolInfo } from '../../../shared/session-info';
import { FieldInput } from './FieldInput';
import {
  type FormValues,
  fieldsFromSchema,
  initialValues,
  parseRawArgs,
  valuesFromArgs,
  valuesToArgs,
} from './schema-form';

export type ArgsState = { args: Record<string, unknown> } | { error: string };

interface ArgumentsEditorProps {
  tool: ToolInfo;
  onChange(state: ArgsState): void;
}

export function ArgumentsEditor({ tool, onChange }: ArgumentsEditorProps): ReactElement {
  const form = useMemo(() => fieldsFromSchema(tool.inputSchema), [tool.inputSchema]);
  const [raw, setRaw] = useState(form.unsupported !== null);
  const [values, setValues] = useState<FormValues>(() => initialValues(form.fields));
  const [rawText, setRawText] = useState('{}');

  const formResult = useMemo(() => valuesToArgs(form.fields, values), [form.fields, values]);
  const state: ArgsState = useMemo(() => {
    if (raw) return parseRawArgs(rawText);
    const bad = Object.entries(formResult.errors);
    return bad.length > 0
      ? { error: bad.map(([k, v]) => `${k}: ${v}`).join('; ') }
      : { args: formResult.args };
  }, [raw, rawText, formResult]);
  useEffect(() => onChange(state), [state, onChange]);

  const toRaw = (): void => {
    setRawText(JSON.stringify(formResult.args, null, 2));
    setRaw(true);
  };
  const toForm = (): void => {
    const parsed = parseRawArgs(rawText);
    if ('args' in parsed) setValues(valuesFromArgs(form.fields, parsed.args));
    setRaw(false);
  };

  return (
    <div className="args-editor">
      <div className="args-toolbar">
        <span className="muted small-text">
          {form.unsupported ??
            `${form.fields.length} argument${form.fields.length === 1 ? '' : 's'}`}
        </span>
        <label className="toggle">
          <input
            type="checkbox"
            checked={raw}
            disabled={form.unsupported !== null}
            data-testid="raw-json-toggle"
            onChange={(e) => (e.target.checked ? toRaw() : toForm())}
          />
          raw JSON
        </label>
      </div>
      {raw ? (
        <textarea
          className="mono raw-json"
          rows={8}
          spellCheck={false}
          value={rawText}
          data-testid="raw-json"
          onChange={(e) => setRawText(e.target.value)}
        />
      ) : (
        <div className="fields">
          {form.fields.map((f) => (
            <FieldInput
              key={f.name}
              field={f}
              value={values[f.name] ?? ''}
              error={(values[f.name] ?? '') === '' ? undefined : formResult.errors[f.name]}
              onChange={(v) => setValues((prev) => ({ ...prev, [f.name]: v }))}
            />
          ))}
          {form.fields.length === 0 ? (
            <p className="muted small-text">This tool takes no arguments.</p>
          ) : null}
        </div>
      )}
    </div>
  );
}
