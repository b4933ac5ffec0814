export * as Bluesky from "./bluesky/index.js"
export { registry } from "./Registry.js"
export * as X from "./x/index.js"
export * as Simulator from "./simulator/Simulator.js"
export {
  type PublishRecord,
  SimulatorNetwork,
  type SimulatorOptions,
  triggers,
  triggerUsernames,
  unknownHandlePrefix
} from "./simulator/SimulatorNetwork.js"
export {
  makeSimulatorPublisher,
  type SimulatorPublisher,
  simulatorAdapters,
  type SimulatorPublisherOptions,
  SimulatorPublishers
} from "./simulator/SimulatorPublisher.js"
export { type RunningSimulator, SimulatorServer, type SimulatorServerOptions, startSimulator } from "./simulator/SimulatorServer.js"
export * as SimulatorWire from "./simulator/SimulatorWire.js"
export * as Kit from "./kit/index.js"
export * as Instagram from "./instagram/index.js"
export * as Linkedin from "./linkedin/index.js"
export * as Meta from "./meta/index.js"
export * as Pinterest from "./pinterest/index.js"
export * as Threads from "./threads/index.js"
export * as Facebook from "./facebook/index.js"
export * as Tiktok from "./tiktok/index.js"
export * as Youtube from "./youtube/index.js"
export * as Aggregator from "./aggregator/index.js"
