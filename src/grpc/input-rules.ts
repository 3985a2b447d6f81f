/**
 * The input rules of the Inventory contract: each `buf.validate` rule of contracts/inventory/v1, checked by
 * protovalidate on every request before it reaches the core, and the rule that no text holds U+0000.
 * A request that breaks one is `VALIDATION_FAILED` (INVALID_ARGUMENT with a BadRequest, ./errors.ts),
 * naming each field by its proto name, as the REST and GraphQL transports name theirs.
 */
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { pathToString } from '@bufbuild/protobuf/reflect';
import { createValidator } from '@bufbuild/protovalidate';
import { DomainError, type Violation } from '../core/shared/errors.js';
import { NUL_CHARACTER_MESSAGE } from '../core/shared/text.js';
import { toConnectError } from './errors.js';
import { patternMatch } from './pattern-match.js';
import type { CallWrapper } from './service-wrappers.js';

/**
 * Checks every request against its method's input message before the call goes on: on both hosts, for
 * every package served (inventory.v1, and a version cut beside it), and on the in-process transport.
 */
export const validateRequests: CallWrapper = (method, next) => (request, context) => {
  try {
    checkedRequest(method.input, request as never);
  } catch (error) {
    return Promise.reject(toConnectError(error));
  }
  return next(request, context);
};

/**
 * One validator for the process: it compiles each message's rules once, on first use. Its patterns run on
 * the engine ./pattern-match.ts chooses for each.
 */
const validator = createValidator({ regexMatch: patternMatch });

/** Throws `VALIDATION_FAILED` naming every broken rule of `message`; returns it when it keeps them all. */
export function checkedRequest<Desc extends DescMessage>(
  schema: Desc,
  message: MessageShape<Desc>,
): MessageShape<Desc> {
  const violations = nulViolations(schema, message);
  if (violations.length === 0) {
    const result = validator.validate(schema, message);
    // A rule the validator cannot evaluate is the contract's fault, not the caller's: it surfaces as INTERNAL.
    if (result.kind === 'error') throw result.error;
    if (result.kind === 'valid') return message;
    for (const violation of result.violations) {
      violations.push({
        in: 'body',
        name: violation.field ? pathToString(violation.field) : '',
        message: violation.message,
      });
    }
  }
  // No colon in the detail: connect-node percent-encodes it in `grpc-message`, and grpc-js shows it so.
  const summary = violations.map((violation) => `${violation.name} ${violation.message}`).join('; ');
  throw new DomainError('VALIDATION_FAILED', `${summary}.`, violations);
}

/** The text fields of `message` that hold U+0000, checked first as the HTTP transports check it first. */
function nulViolations(schema: DescMessage, message: Record<string, unknown>): Violation[] {
  return schema.fields
    .filter((field) => {
      const value = message[field.localName];
      return typeof value === 'string' && value.includes('\u0000');
    })
    .map((field) => ({ in: 'body', name: field.name, message: NUL_CHARACTER_MESSAGE }));
}
