import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/build/**", "**/dist/**", "**/.herald*/**", "**/generated/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: { URL: "readonly", console: "readonly", process: "readonly" } }
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-namespace": "off",
      "@typescript-eslint/no-empty-object-type": "off"
    }
  },
  {
    files: ["packages/*/src/**/*.ts"],
    ignores: ["packages/core/src/Tracing.ts"],
    rules: {
      "no-restricted-properties": ["error",
        { object: "Effect", property: "fn", message: "use traced from @herald/core (core/src/Tracing.ts): no span cost while the tracer is off" },
        { object: "Effect", property: "withSpan", message: "use inSpan from @herald/core (core/src/Tracing.ts): no span cost while the tracer is off" }
      ]
    }
  },
  {
    files: ["packages/core/src/**/*.ts"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [{ regex: "^(?!effect(/|$)|\\.)", message: "@herald/core imports effect only" }]
      }]
    }
  }
)
