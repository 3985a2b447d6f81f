import { create, type DescFile, type DescMessage, type DescService, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code, type ConnectRouter } from '@connectrpc/connect';
import {
  ServerReflection,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from '../../generated/proto/grpc/reflection/v1/reflection_pb.js';

/**
 * The standard `grpc.reflection.v1.ServerReflection` service over the generated descriptors of the
 * services this port serves, so that `buf curl --list-services` and grpcurl work without a schema.
 */
export function reflectionRoutes(services: readonly DescService[]) {
  const all = [...services, ServerReflection];
  const files = new Map<string, DescFile>();
  const addFile = (file: DescFile) => {
    if (files.has(file.proto.name)) return;
    files.set(file.proto.name, file);
    for (const dependency of file.dependencies) addFile(dependency);
  };
  for (const service of all) addFile(service.file);

  /** The file that declares a fully-qualified symbol (a type, a service, or one of its methods or fields). */
  const fileOfSymbol = (symbol: string): DescFile | undefined => {
    for (const file of files.values()) {
      const declared = [...file.messages, ...file.enums, ...file.services, ...file.extensions];
      for (const descriptor of declared) {
        if (descriptor.typeName === symbol || symbol.startsWith(`${descriptor.typeName}.`)) return file;
      }
      for (const message of file.messages) {
        if (nested(message.nestedMessages, symbol) || message.nestedEnums.some((e) => e.typeName === symbol))
          return file;
      }
    }
    return undefined;
  };

  /** The file and every file it imports, each once, dependencies first. */
  const withDependencies = (file: DescFile): Uint8Array[] => {
    const ordered: DescFile[] = [];
    const visit = (current: DescFile) => {
      if (ordered.includes(current)) return;
      for (const dependency of current.dependencies) visit(dependency);
      ordered.push(current);
    };
    visit(file);
    return ordered.map((each) => toBinary(FileDescriptorProtoSchema, each.proto));
  };

  const answer = (request: ServerReflectionRequest): ServerReflectionResponse => {
    const base = { validHost: request.host, originalRequest: request };
    const notFound = (what: string) =>
      create(ServerReflectionResponseSchema, {
        ...base,
        messageResponse: {
          case: 'errorResponse',
          value: { errorCode: Code.NotFound, errorMessage: `${what} not found` },
        },
      });
    const files = (file: DescFile | undefined, what: string) =>
      file
        ? create(ServerReflectionResponseSchema, {
            ...base,
            messageResponse: { case: 'fileDescriptorResponse', value: { fileDescriptorProto: withDependencies(file) } },
          })
        : notFound(what);
    const { messageRequest } = request;
    switch (messageRequest.case) {
      case 'listServices':
        return create(ServerReflectionResponseSchema, {
          ...base,
          messageResponse: { case: 'listServicesResponse', value: { service: all.map((s) => ({ name: s.typeName })) } },
        });
      case 'fileByFilename':
        return files(filesByName(messageRequest.value), `file ${messageRequest.value}`);
      case 'fileContainingSymbol':
        return files(fileOfSymbol(messageRequest.value), `symbol ${messageRequest.value}`);
      case 'allExtensionNumbersOfType':
        return create(ServerReflectionResponseSchema, {
          ...base,
          messageResponse: {
            case: 'allExtensionNumbersResponse',
            value: { baseTypeName: messageRequest.value, extensionNumber: [] },
          },
        });
      default:
        return notFound('extension');
    }
  };
  const filesByName = (name: string) => files.get(name);

  return (router: ConnectRouter) =>
    router.service(ServerReflection, {
      async *serverReflectionInfo(requests) {
        for await (const request of requests) yield answer(request);
      },
    });
}

function nested(messages: readonly DescMessage[], symbol: string): boolean {
  return messages.some((message) => message.typeName === symbol || nested(message.nestedMessages, symbol));
}
