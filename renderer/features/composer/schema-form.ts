/**
 * A tool's `inputSchema` (JSON Schema) → form fields, form values → `tools/call` arguments and
 * back. Pure. Covers what MCP tools use in practice (string, number, integer, boolean, enum,
 * array of strings); anything else becomes a JSON textarea, and a schema the form cannot
 * express at all sends the user to the raw-JSON editor.
 */

export type FieldKind =
  | 'string'
  | 'number'
  | 'integer'
  | 'boolean'
  | 'enum'
  | 'string-array'
  | 'json';

export type EnumOption = string | number | boolean | null;

export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  title: string | null;
  description: string | null;
  options: EnumOption[];
  default: unknown;
  hasDefault: boolean;
  minimum: number | null;
  maximum: number | null;
}

/** Every value is form text: booleans 'true' | 'false' | '', enums the option index or ''. */
export type FormValues = Record<string, string>;

export interface SchemaForm {
  fields: FormField[];
  /** Set when the schema cannot be shown as a form (the raw editor is the way). */
  unsupported: string | null;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function typesOf(schema: Json): string[] {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  return [];
}

/** anyOf/oneOf [X, {type: null}] → X; a list of consts → an enum; else null. */
function simplifyUnion(schema: Json): Json | null {
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (!Array.isArray(union)) return null;
  const branches = union.filter(isObject);
  const nonNull = branches.filter((b) => !(typesOf(b).length === 1 && typesOf(b)[0] === 'null'));
  if (nonNull.length === 1) return { ...nonNull[0], ...pickDocs(schema) };
  if (branches.every((b) => 'const' in b)) {
    return { enum: branches.map((b) => b.const), ...pickDocs(schema) };
  }
  return null;
}

function pickDocs(schema: Json): Json {
  const out: Json = {};
  for (const key of ['title', 'description', 'default'] as const) {
    if (key in schema) out[key] = schema[key];
  }
  return out;
}

function kindOf(schema: Json): { kind: FieldKind; options: EnumOption[] } {
  if (Array.isArray(schema.enum)) {
    const options = schema.enum.filter(
      (o): o is EnumOption => o === null || ['string', 'number', 'boolean'].includes(typeof o),
    );
    if (options.length === schema.enum.length && options.length > 0)
      return { kind: 'enum', options };
    return { kind: 'json', options: [] };
  }
  if ('const' in schema) return kindOf({ ...schema, enum: [schema.const] });
  const simplified = simplifyUnion(schema);
  if (simplified) return kindOf(simplified);
  const types = typesOf(schema).filter((t) => t !== 'null');
  if (types.length !== 1) return { kind: 'json', options: [] };
  const [type] = types;
  if (type === 'string' || type === 'number' || type === 'integer' || type === 'boolean') {
    return { kind: type, options: [] };
  }
  if (type === 'array' && isObject(schema.items)) {
    const items = schema.items;
    if (typesOf(items).length === 1 && typesOf(items)[0] === 'string' && !('enum' in items)) {
      return { kind: 'string-array', options: [] };
    }
  }
  return { kind: 'json', options: [] };
}

function numberOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

export function fieldsFromSchema(inputSchema: unknown): SchemaForm {
  if (!isObject(inputSchema))
    return { fields: [], unsupported: 'the input schema is not an object' };
  const types = typesOf(inputSchema);
  if (types.length > 0 && !types.includes('object')) {
    return { fields: [], unsupported: `arguments of type ${types.join('|')} are not an object` };
  }
  const props = inputSchema.properties;
  if (props !== undefined && !isObject(props)) {
    return { fields: [], unsupported: 'properties is not an object' };
  }
  if (props === undefined && (inputSchema.anyOf || inputSchema.oneOf || inputSchema.allOf)) {
    return { fields: [], unsupported: 'a combined schema (anyOf/oneOf/allOf): use raw JSON' };
  }
  const required = new Set(
    Array.isArray(inputSchema.required)
      ? inputSchema.required.filter((x): x is string => typeof x === 'string')
      : [],
  );
  const fields: FormField[] = [];
  for (const [name, raw] of Object.entries(props ?? {})) {
    const schema = isObject(raw) ? raw : {};
    const docs = simplifyUnion(schema) ?? schema;
    const { kind, options } = kindOf(schema);
    fields.push({
      name,
      kind,
      required: required.has(name),
      title: typeof docs.title === 'string' ? docs.title : null,
      description: typeof docs.description === 'string' ? docs.description : null,
      options,
      default: docs.default,
      hasDefault: 'default' in docs,
      minimum: numberOrNull(docs.minimum),
      maximum: numberOrNull(docs.maximum),
    });
  }
  return { fields, unsupported: null };
}

/** The text a field shows for a value (used for defaults and for raw JSON → form). */
export function valueToText(field: FormField, value: unknown): string {
  if (value === undefined) return '';
  switch (field.kind) {
    case 'string':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'number':
    case 'integer':
      return typeof value === 'number' ? String(value) : '';
    case 'boolean':
      return value === true ? 'true' : value === false ? 'false' : '';
    case 'enum': {
      const at = field.options.indexOf(value as EnumOption);
      return at === -1 ? '' : String(at);
    }
    case 'string-array':
      return Array.isArray(value) ? value.map(String).join('\n') : '';
    case 'json':
      return JSON.stringify(value, null, 2);
  }
}

export function initialValues(fields: readonly FormField[]): FormValues {
  const values: FormValues = {};
  for (const f of fields) values[f.name] = f.hasDefault ? valueToText(f, f.default) : '';
  return values;
}

export function valuesFromArgs(fields: readonly FormField[], args: Json): FormValues {
  const values: FormValues = {};
  for (const f of fields) values[f.name] = valueToText(f, args[f.name]);
  return values;
}

export interface ArgsResult {
  args: Record<string, unknown>;
  /** Field name → what is wrong; empty when the arguments are valid. */
  errors: Record<string, string>;
}

/** Form values → arguments. Empty optional fields are left out, empty required ones flagged. */
export function valuesToArgs(fields: readonly FormField[], values: FormValues): ArgsResult {
  const args: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const text = values[f.name] ?? '';
    if (text.trim() === '' && f.kind !== 'string') {
      if (f.required) errors[f.name] = 'required';
      continue;
    }
    if (text === '' && f.kind === 'string') {
      if (f.required) errors[f.name] = 'required';
      continue;
    }
    const parsed = parseField(f, text);
    if ('error' in parsed) errors[f.name] = parsed.error;
    else args[f.name] = parsed.value;
  }
  return { args, errors };
}

function parseField(f: FormField, text: string): { value: unknown } | { error: string } {
  switch (f.kind) {
    case 'string':
      return { value: text };
    case 'number':
    case 'integer': {
      const n = Number(text.trim());
      if (!Number.isFinite(n)) return { error: 'not a number' };
      if (f.kind === 'integer' && !Number.isInteger(n)) return { error: 'not an integer' };
      if (f.minimum !== null && n < f.minimum) return { error: `at least ${f.minimum}` };
      if (f.maximum !== null && n > f.maximum) return { error: `at most ${f.maximum}` };
      return { value: n };
    }
    case 'boolean':
      return text === 'true'
        ? { value: true }
        : text === 'false'
          ? { value: false }
          : { error: 'true or false' };
    case 'enum': {
      const at = Number(text);
      if (!Number.isInteger(at) || at < 0 || at >= f.options.length)
        return { error: 'pick a value' };
      return { value: f.options[at] };
    }
    case 'string-array':
      return {
        value: text
          .split('\n')
          .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
          .filter((l) => l.length > 0),
      };
    case 'json':
      try {
        return { value: JSON.parse(text) as unknown };
      } catch (e) {
        return { error: `invalid JSON: ${e instanceof Error ? e.message : String(e)}` };
      }
  }
}

/** Raw JSON editor text → arguments object, or an error message. */
export function parseRawArgs(text: string): { args: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { args: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { error: `invalid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isObject(value)) return { error: 'arguments must be a JSON object' };
  return { args: value };
}
