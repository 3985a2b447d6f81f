/**
 * Server reflection on the grpc-js host: @grpc/reflection (v1 and v1alpha) over the generated descriptors,
 * answering each file with every file it imports, as buf curl and grpcurl need to build them.
 */
import { type DescService, toBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { ReflectionService } from '@grpc/reflection';

/** The reflection service describing `services` (and every file they import). */
export function reflectionService(services: readonly DescService[]): ReflectionService {
  return withDeclaredImports(new ReflectionService(packageDefinitionOf(services)));
}

/** What @grpc/reflection 1.0 keeps per implementation (v1 and v1alpha) to answer a file's imports. */
interface ReflectionIndex {
  files: Record<string, { dependency?: string[] }>;
  fileDependencies: Map<object, object[]>;
}

/**
 * Makes each file's answer carry every file it imports. @grpc/reflection 1.0 derives a file's imports from
 * the types its fields and methods name, so a file imported only for its options or the messages its
 * extensions extend is left out (buf/validate/validate.proto's google/protobuf/descriptor.proto), and a
 * client that builds the files (buf curl, grpcurl) fails: "failed to find service named
 * inventory.v1.Inventory in schema" (grpc/grpc-node#2595). Its index is private: read it defensively.
 */
function withDeclaredImports(service: ReflectionService): ReflectionService {
  const { v1, v1Alpha } = service as unknown as { v1: ReflectionIndex; v1Alpha: ReflectionIndex };
  for (const index of [v1, v1Alpha]) {
    if (!index?.files || !(index.fileDependencies instanceof Map)) continue;
    for (const file of Object.values(index.files)) {
      const imported = (file.dependency ?? []).map((name) => index.files[name]).filter((found) => found !== undefined);
      const known = index.fileDependencies.get(file) ?? [];
      index.fileDependencies.set(file, [...known, ...imported.filter((found) => !known.includes(found))]);
    }
  }
  return service;
}

/** What @grpc/reflection reads (a package definition's `fileDescriptorProtos`) from the generated descriptors. */
function packageDefinitionOf(services: readonly DescService[]) {
  const files: DescService['file'][] = [];
  const visit = (file: DescService['file']) => {
    if (files.includes(file)) return;
    for (const dependency of file.dependencies) visit(dependency);
    files.push(file);
  };
  for (const service of services) visit(service.file);
  // The generated descriptors as they are: re-encoded through proto-loader (protobufjs) they lose each
  // file's `dependency` list, and a reflection client cannot resolve the types a file imports. The
  // service reads only `fileDescriptorProtos` of each entry.
  const fileDescriptorProtos = files.map((file) => toBinary(FileDescriptorProtoSchema, file.proto));
  return { descriptors: { fileDescriptorProtos } } as unknown as ConstructorParameters<typeof ReflectionService>[0];
}
