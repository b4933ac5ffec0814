import { lifecycleModel } from "./LifecycleModel.js"

lifecycleModel("autopilot")
