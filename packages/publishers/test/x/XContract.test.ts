import { publisherContract } from "../kit/publisherContract.js"
import { xContractSetup } from "./xContract.js"

publisherContract("x", xContractSetup)
