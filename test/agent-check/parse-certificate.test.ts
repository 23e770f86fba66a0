import { describe, expect, it } from 'vitest';
import { checkAgent } from '../../src/agent-check/check-agent.js';
import { parseCertificate } from '../../src/agent-check/parse-certificate.js';
import { InvalidCertificateError } from '../../src/errors/certificate-errors.js';
import { support } from '../../examples/agents/support.js';

function failure(text: string): InvalidCertificateError {
  try {
    parseCertificate(text);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidCertificateError);
    return error as InvalidCertificateError;
  }
  throw new Error('parsed');
}

describe('parseCertificate', () => {
  it('reads back what checkAgent wrote', () => {
    const cert = checkAgent(support);
    expect(parseCertificate(JSON.stringify(cert, null, 2))).toEqual(cert);
  });

  it('a bad file is INVALID_CERTIFICATE naming the field', () => {
    const cert = JSON.parse(JSON.stringify(checkAgent(support))) as Record<string, unknown>;
    const tools = cert['tools'] as Record<string, unknown>[];
    tools[2]!['approval'] = 'sometimes';
    const wrong = failure(JSON.stringify(cert));
    expect(wrong.code).toBe('INVALID_CERTIFICATE');
    expect(wrong.path).toBe('tools.2.approval');
    expect(wrong.message).toMatch(/^Invalid agent certificate at tools\.2\.approval: /);
    expect(failure('{"version": 1').message).toMatch(/not JSON/);
    expect(failure('{"version": 9}').path).toBe('version');
    expect(failure('{"version": 1}').path).toBe('agent');
    expect(failure('[]').path).toBe('');
    expect(() => parseCertificate(undefined as never)).toThrow(TypeError);
  });
});
