export * from "./LlmClassifier.js"
