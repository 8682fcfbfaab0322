/** Redaction rules (HARDENING.md 33): what is known to be secret goes, counted per rule;
 *  names and ordinary payload text stay. */
import { afterEach, describe, expect, it } from 'vitest';
import { addSecret, isSecretName, Redactor, removeSecret } from './redact.js';

const on = (): Redactor => new Redactor({ enabled: true });

describe('isSecretName', () => {
  it.each([
    'token',
    '--token',
    'GITHUB_TOKEN',
    'api_key',
    'api-key',
    '--api-key',
    'apiKey',
    'OPENAI_API_KEY',
    'MY_KEY',
    'password',
    'client_secret',
    'accessToken',
    'auth',
    'x-auth',
    'credentials',
  ])('%s is a secret name', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each([
    'progressToken',
    'max_tokens',
    'tokens',
    'keyboard',
    'monkey',
    'author',
    'cursor',
    'id',
  ])('%s is not', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe('Redactor.text', () => {
  it.each([
    ['Authorization: Bearer CANARY123', 'Authorization: ***'],
    ['authorization=Basic Q0FOQVJZOnh4eA==', 'authorization=***'],
    ['Cookie: sid=CANARY; theme=dark', 'Cookie: ***'],
    ['{"Authorization":"Bearer CANARY123"}', '{"Authorization":"***"}'],
    ['{\\"authorization\\": \\"Bearer CANARY\\"}', '{\\"authorization\\": \\"***\\"}'],
    ['sent Bearer eyJhbGciOi.CANARY to the api', 'sent Bearer *** to the api'],
    ['GET /x?token=CANARY&page=2', 'GET /x?token=***&page=2'],
    ['OPENAI_API_KEY=sk-CANARY node srv.js', 'OPENAI_API_KEY=*** node srv.js'],
    ['{"apiKey":"CANARY","name":"x"}', '{"apiKey":"***","name":"x"}'],
    ['{"password": "CANARY\\"quoted"}', '{"password": "***"}'],
    ['token: CANARY_c0ffee1234', 'token: ***'],
    ['log: token=CANARY_EXPORT_1 ok', 'log: token=*** ok'],
    ['see https://x.test/a?token=CANARY', 'see https://x.test/a?token=***'],
    ['next=/login?x=1&api_key=CANARY', 'next=/login?x=1&api_key=***'],
    ['{"url":"https://x/?token=CANARY"}', '{"url":"https://x/?token=***"}'],
  ])('%s → %s', (input, expected) => {
    expect(on().text(input)).toBe(expected);
  });

  it.each([
    ['key sk-proj-CANARYabcdefghijklmnop1234', 'key ***'],
    ['"ghp_CANARYabcdefghijklmnopqrstuvwxyz0123"', '"***"'],
    ['github_pat_CANARY_abcdefghijklmnopqrstuvwxyz', '***'],
    ['aws AKIACANARY0123456789 and ASIAABCDEFGHIJKLMNOP.', 'aws *** and ***.'],
    ['slack xoxb-CANARY-123456789012', 'slack ***'],
    ['AIzaCANARY_abcdefghijklmnopqrstuvwxyz01', '***'],
    ['stripe sk_live_CANARY0123456789abcd', 'stripe ***'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJDQU5BUlkifQ.c2lnbmF0dXJl end', 'jwt *** end'],
    ['"-----BEGIN RSA PRIVATE KEY-----\\nMIIEow CANARY\\n-----END RSA PRIVATE KEY-----"', '"***"'],
    ['postgres://app:CANARYpw@db:5432/x', 'postgres://app:***@db:5432/x'],
  ])('key formats and URL passwords: %s → %s', (input, expected) => {
    expect(on().text(input)).toBe(expected);
  });

  it('leaves ordinary payload text alone, even when it names a secret', () => {
    const texts = [
      // The tool argument of issue 22: a user's text, not a credential.
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello secret=abc"}}}',
      'token: CANARY',
      'password: hunter2',
      'the bearer token goes in a header',
      'Basic settings and Bearer bonds',
      'run it with --token abc',
      'sk-short and AKIA-not-a-key, eyJ alone',
      '-----BEGIN PRIVATE KEY----- with no end',
    ];
    for (const t of texts) expect(on().text(t)).toBe(t);
  });

  it('counts what it replaced, per rule, and says why', () => {
    const r = new Redactor({ enabled: true });
    r.env({ A: 'CANARY_ENV_VALUE' });
    r.text('CANARY_ENV_VALUE and sk-CANARYabcdefghijklmnop1234 and Authorization: Bearer x1234567');
    const summary = r.summary(true);
    const count = (rule: string) => summary.rules.find((x) => x.rule === rule)?.count;
    expect(count('env-value')).toBe(2); // the header's value, then one in text
    expect(count('key-format')).toBe(1);
    expect(count('auth-header')).toBe(1);
    expect(count('secret-assignment')).toBe(0);
    expect(summary.final).toBe(true);
    expect(summary.rules.every((x) => x.why.length > 10)).toBe(true);
  });

  it('leaves ordinary protocol text alone', () => {
    const texts = [
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"item"},"_meta":{"progressToken":"pipescope-3"}}}',
      '{"result":{"content":[{"type":"text","text":"Showing results 1-20 of 237"}]},"jsonrpc":"2.0","id":3}',
      '[healthy] ready (pid 123)\n',
      'the author wrote a basic test with max_tokens: 100',
    ];
    for (const t of texts) expect(on().text(t)).toBe(t);
  });

  it('passes everything through when disabled', () => {
    const off = new Redactor({ enabled: false, secrets: ['CANARY_SECRET'] });
    expect(off.text('Authorization: Bearer CANARY_SECRET')).toBe(
      'Authorization: Bearer CANARY_SECRET',
    );
    expect(off.env({ A: 'b' })).toEqual({ A: 'b' });
    expect(off.args(['--token', 'x'])).toEqual(['--token', 'x']);
  });
});

describe('Redactor.command', () => {
  it.each([
    ['node srv.js --token CANARY --port 3', 'node srv.js --token *** --port 3'],
    ['node srv.js --api-key=CANARY', 'node srv.js --api-key=***'],
    ['python3 srv.py -password hunter2', 'python3 srv.py -password ***'],
  ])('a command line: %s → %s', (input, expected) => {
    expect(on().command(input)).toBe(expected);
  });
});

describe('secrets', () => {
  afterEach(() => removeSecret('WEB_TOKEN_CANARY_0123456789'));

  it('a registered secret is redacted anywhere, also JSON-escaped', () => {
    addSecret('WEB_TOKEN_CANARY_0123456789');
    expect(on().text('ws://127.0.0.1:5/?t=WEB_TOKEN_CANARY_0123456789 ok')).toBe(
      'ws://127.0.0.1:5/?t=*** ok',
    );
    const r = new Redactor({ enabled: true, secrets: ['a"b\\c-CANARY'] });
    expect(r.text(JSON.stringify({ x: 'a"b\\c-CANARY' }))).toBe('{"x":"***"}');
  });

  it('ignores secrets too short to replace safely', () => {
    const r = new Redactor({ enabled: true, secrets: ['ab'] });
    expect(r.text('abc ab')).toBe('abc ab');
  });

  it('env values become *** and are then redacted in any text', () => {
    const r = on();
    expect(r.env({ MY_SETTING: 'CANARY_ENV_VALUE', EMPTY: '' })).toEqual({
      MY_SETTING: '***',
      EMPTY: '***',
    });
    expect(r.text('server says CANARY_ENV_VALUE')).toBe('server says ***');
  });

  it('argument secrets are redacted in argv and remembered for later text', () => {
    const r = on();
    expect(
      r.args(['srv.js', '--token', 'CANARY_A1', '--api-key=CANARY_A2', 'SERVICE_KEY=CANARY_A3']),
    ).toEqual(['srv.js', '--token', '***', '--api-key=***', 'SERVICE_KEY=***']);
    expect(r.text('got CANARY_A1 and CANARY_A2 and CANARY_A3')).toBe('got *** and *** and ***');
    expect(r.args(['--url', 'https://x/?access_token=CANARY_A4'])).toEqual([
      '--url',
      'https://x/?access_token=***',
    ]);
  });
});

describe('large and nested texts', () => {
  it('redacts a 25 MiB frame of JSON-in-JSON in linear time, keeping both JSON layers valid', () => {
    const item = { id: 'item-0001', title: 'alpha "quoted" notes', url: 'https://x.test/?page=2' };
    const inner = JSON.stringify({
      items: Array.from({ length: 250_000 }, () => item),
      auth: { apiKey: 'CANARY_DEEP', url: 'https://x/?token=CANARY_Q' },
    });
    const frame = JSON.stringify({ jsonrpc: '2.0', id: 3, result: { text: inner } });
    expect(frame.length).toBeGreaterThan(20 * 1024 * 1024);
    const started = performance.now();
    const out = on().text(frame);
    const ms = performance.now() - started;
    expect(out).not.toContain('CANARY');
    const parsed = JSON.parse(out) as { result: { text: string } };
    const back = JSON.parse(parsed.result.text) as { auth: { apiKey: string; url: string } };
    expect(back.auth).toEqual({ apiKey: '***', url: 'https://x/?token=***' });
    // Generous for a loaded 2-core box (~1 s alone); a quadratic pass takes minutes.
    expect(ms).toBeLessThan(30_000);
  }, 60_000);

  it('a chain of assignments does not recurse, nor cost the square of its length', () => {
    const chain = `${'a='.repeat(200_000)}token=CANARY_0123456789`;
    expect(on().text(chain).endsWith('token=***')).toBe(true);
    const started = performance.now();
    on().text(`${'token='.repeat(100_000)}x`);
    on().text('eyJa.'.repeat(100_000));
    on().text('-----BEGIN PRIVATE KEY-----'.repeat(20_000));
    on().text('a.'.repeat(200_000));
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('Redactor.report and evidence', () => {
  it("redacts a finding's evidence, nested commands included, with the report's secrets", () => {
    const r = on();
    const out = r.report({
      server: {
        command: 'python3',
        args: ['srv.py', '--token', 'SECRETVALUE12345'],
        pid: 1,
        exit: null,
      },
      metrics: {} as never, // only the fields report() reads
      requests: [],
      recovery: null,
      findings: [
        {
          code: 'subprocess-blocked',
          level: 'error',
          message: 'child of python3 srv.py --token SECRETVALUE12345',
          evidence: {
            pid: 2,
            command: 'python3 srv.py --token SECRETVALUE12345',
            reader: { pid: 1, command: 'python3 srv.py --token SECRETVALUE12345' },
          },
        },
      ],
      process: { available: true, samples: 3 },
    });
    expect(JSON.stringify(out)).not.toContain('SECRETVALUE12345');
    expect(out.findings[0].evidence?.pid).toBe(2);
  });
});
