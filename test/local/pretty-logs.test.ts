import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../local/cli-options';
import { prettyLine, prettyOutput } from '../../local/pretty-logs';
import { withInvocation } from '../../shared/observability/invocation';
import { formatLine } from '../../shared/observability/logger';
import { emfLine } from '../../shared/observability/metrics';

describe('npm start -- --pretty', () => {
  it('renders a log line as time, level, where, short correlation id, message and the other fields', () => {
    const line = withInvocation({ functionName: 'send-sms', awsRequestId: 'r-1' }, { correlation_id: '3f2a9c1e-0000-4000-8000-000000000000' }, () =>
      formatLine('INFO', 'sms submitted', { message_id: 'm 1', sim_id: 1001, detail: { a: 1 } }),
    );
    const time = (JSON.parse(line) as { timestamp: string }).timestamp.slice(11, 23);
    expect(prettyLine(line)).toBe(`${time} INFO   send-sms*        3f2a9c1e  sms submitted  message_id="m 1" sim_id=1001 detail={"a":1}`);
  });

  it('renders an EMF line as the metric and its dimensions, and leaves other text alone', () => {
    const line = emfLine('Checkouts', 1, { endpoint: 'esim', outcome: 'created' }, Date.parse('2026-11-25T13:00:01.234Z'));
    expect(prettyLine(line)).toBe(`13:00:01.234 METRIC ${''.padEnd(16)} -         Checkouts=1 endpoint=esim outcome=created`);
    expect(prettyLine('Local API ready at http://127.0.0.1:3000')).toBeUndefined();
    expect(prettyLine('{"not": "a log line"}')).toBeUndefined();
  });

  it('rewrites a stream line by line, across chunk boundaries, until undone', () => {
    const written: string[] = [];
    const stream = { write: (chunk: string | Uint8Array) => written.push(String(chunk)) > 0 };
    const undo = prettyOutput(stream);
    const json = formatLine('WARN', 'odd', { component: 'local-gateway' });
    stream.write(`Local API ready at http://x\n${json.slice(0, 10)}`);
    stream.write(`${json.slice(10)}\n`);
    undo();
    stream.write(`${json}\n`);
    expect(written[0]).toBe('Local API ready at http://x\n');
    expect(written[1]).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} WARN   local-gateway    -         odd\n$/);
    expect(written[2]).toBe(`${json}\n`);
  });

  it('is a start option beside --persist and --bundled', () => {
    expect(parseArguments(['--pretty', '--bundled'])).toEqual({ persistDir: undefined, bundled: true, pretty: true });
    expect(parseArguments([])).toEqual({ persistDir: undefined, bundled: false, pretty: false });
    expect(() => parseArguments(['--loud'])).toThrow('Unknown argument --loud. Usage: npm start [-- --persist DIR] [--bundled] [--pretty]');
  });
});
