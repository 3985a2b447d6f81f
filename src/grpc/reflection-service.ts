import {
  create,
  type DescFile,
  type DescMessage,
  type DescService,
  type MessageInitShape,
  toBinary,
} from '@bufbuild/protobuf';
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

  return (router: ConnectRouter) =>
    router.service(ServerReflection, {
      async *serverReflectionInfo(requests) {
        for await (const request of requests) yield answer(request, all, files);
      },
    });
}

/** The answer to one reflection request. */
function answer(
  request: ServerReflectionRequest,
  all: readonly DescService[],
  files: Map<string, DescFile>,
): ServerReflectionResponse {
  const respond = (messageResponse: MessageInitShape<typeof ServerReflectionResponseSchema>['messageResponse']) =>
    create(ServerReflectionResponseSchema, { validHost: request.host, originalRequest: request, messageResponse });
  const notFound = (what: string) =>
    respond({ case: 'errorResponse', value: { errorCode: Code.NotFound, errorMessage: `${what} not found` } });
  const fileResponse = (file: DescFile | undefined, what: string) =>
    file
      ? respond({ case: 'fileDescriptorResponse', value: { fileDescriptorProto: withDependencies(file) } })
      : notFound(what);
  const { messageRequest } = request;
  switch (messageRequest.case) {
    case 'listServices':
      return respond({ case: 'listServicesResponse', value: { service: all.map((s) => ({ name: s.typeName })) } });
    case 'fileByFilename':
      return fileResponse(files.get(messageRequest.value), `file ${messageRequest.value}`);
    case 'fileContainingSymbol':
      return fileResponse(fileOfSymbol(files, messageRequest.value), `symbol ${messageRequest.value}`);
    case 'allExtensionNumbersOfType':
      return respond({
        case: 'allExtensionNumbersResponse',
        value: { baseTypeName: messageRequest.value, extensionNumber: [] },
      });
    default:
      return notFound('extension');
  }
}

/** The file that declares a fully-qualified symbol (a type, a service, or one of its methods or fields). */
function fileOfSymbol(files: Map<string, DescFile>, symbol: string): DescFile | undefined {
  for (const file of files.values()) {
    const declared = [...file.messages, ...file.enums, ...file.services, ...file.extensions];
    for (const descriptor of declared) {
      if (descriptor.typeName === symbol || symbol.startsWith(`${descriptor.typeName}.`)) return file;
    }
    for (const message of file.messages) {
      if (nested(message.nestedMessages, symbol) || message.nestedEnums.some((e) => e.typeName === symbol)) return file;
    }
  }
  return undefined;
}

/** The file and every file it imports, each once, dependencies first. */
function withDependencies(file: DescFile): Uint8Array[] {
  const ordered: DescFile[] = [];
  const visit = (current: DescFile) => {
    if (ordered.includes(current)) return;
    for (const dependency of current.dependencies) visit(dependency);
    ordered.push(current);
  };
  visit(file);
  return ordered.map((each) => toBinary(FileDescriptorProtoSchema, each.proto));
}

function nested(messages: readonly DescMessage[], symbol: string): boolean {
  return messages.some((message) => message.typeName === symbol || nested(message.nestedMessages, symbol));
}
