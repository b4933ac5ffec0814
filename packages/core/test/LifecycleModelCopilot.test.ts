import { lifecycleModel } from "./LifecycleModel.js"

lifecycleModel("copilot")
