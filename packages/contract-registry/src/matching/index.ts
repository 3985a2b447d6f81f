/**
 * The matchers: which registry items a REST request, a GraphQL document, a gRPC message or an event
 * payload uses. Apart from the registry's format so that what reads only the format (the service's core)
 * does not load graphql or @bufbuild/protobuf.
 */
export { eventItemIndex, registryTouchesEvents } from './events.js';
export { type GraphqlMatcher, graphqlMatcher, namesUsed, variableNamesUsed } from './graphql.js';
export { type GrpcMatcher, grpcMatcher } from './grpc.js';
export { atPointer } from './json-pointer.js';
export { type Reachability, type ResponseItem, type RestMatcher, reachability, restMatcher } from './rest.js';
