import { NoSchemaIntrospectionCustomRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** Refuses introspection (graphql-js's own validation rule) unless `enabled` (GRAPHQL_INTROSPECTION). */
export function useIntrospectionSwitch(enabled: boolean): Plugin {
  return {
    onValidate({ addValidationRule }) {
      if (!enabled) addValidationRule(NoSchemaIntrospectionCustomRule);
    },
  };
}
